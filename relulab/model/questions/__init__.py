"""The open questions: experiments on why large ReLU networks generalise.

- ``double_descent``: random ReLU features against their width, least-norm or ridge
  output weights, the infinite-width kernel, the regimes (benign, tempered,
  catastrophic), an oracle-tuned ridge and the lottery of feature draws.

Every experiment takes ``should_stop`` (``relulab.model.core.cancel``) and has a
``..._steps`` generator that yields (done, total) and returns the result.
"""
