"""Every panel's state: one frozen value a panel shows, saves in a scene and undoes.

- ``converter``: the Deep → shallow panel (its network's source and sizes).
- ``playground``: the Playground panel (data, network, training, view).

Each state has ``to_dict``/``from_dict``, validating every field before anything changes.
"""
