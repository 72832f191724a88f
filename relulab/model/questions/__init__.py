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

Part 2 (why deep, why softmax, why one-hot, why parity is hard):

- ``simplex``: ``softmax`` and ``sparsemax`` (the simplex's KL and Euclidean
  projections) and ``fit_linear_classifier`` with either link.
- ``why_deep``: Yarotsky's ``deep_square``, the feature x1·x2 (``product_feature``)
  against 2-16-16-1 nets (``hidden_layer_fits``).
- ``parity``: ``parity_race`` (sparse parity against majority) and
  ``nearest_neighbour_parity``.
- ``gelu``: ``relu_as_gelu`` and ``gelu_vs_relu``.
- ``targets``: ``one_hot_similarity`` and ``soft_targets``.
- ``lottery_ticket``: ``lottery_tickets`` (the mask against a random mask).

Every experiment takes ``should_stop`` (``relulab.model.core.cancel``) and has a
``..._steps`` generator that yields (done, total) and returns the result.
"""
