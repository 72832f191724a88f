"""The open questions: experiments on why large ReLU networks generalise.

- ``double_descent``: random ReLU features against their width, least-norm or ridge
  output weights, the infinite-width kernel, the regimes (benign, tempered,
  catastrophic), an oracle-tuned ridge (``tuned_ridge``) and the lottery of feature
  draws (``lottery``).
- ``overparam``: 2-H-1 nets on the two spirals: which widths find them
  (``spirals_by_width``), and how much of a trained net survives magnitude pruning
  (``pruning``), with real and with shuffled labels.
- ``lazy``: a 1-m-1 net in NTK parametrisation: the weights move less as m grows and
  the trained net approaches its trained linearisation (``lazy_training``).

Every experiment takes ``should_stop`` (``relulab.model.core.cancel``) and has a
``..._steps`` generator that yields (done, total) and returns the result.
"""
