"""Every panel's state: one frozen value a panel shows, saves in a scene and undoes.

- ``hinges``: the Hinges panel (target, domain, hinges, mode, view).
- ``training``: the Training panel (target, network, optimiser, how far it trained), and
  its replay from the seeds.
- ``folding``: the Folding panel (the tent's depth and peak, the view, the user's fold).
- ``converter``: the Deep → shallow panel (its network's source and sizes).
- ``playground``: the Playground panel (data, network, training, view).

Each state has ``to_dict``/``from_dict``, validating every field before anything changes.
The mathematics and the limits of each panel's controls stay with the subject below.
"""
