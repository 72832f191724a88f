"""The questions' public names: importable from relulab.model and named in the README."""

from pathlib import Path

import relulab.model as model

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_every_question_name_imports_and_the_readme_lists_the_functions():
    names = [n for module, names in model._WHERE.items() if module.startswith("questions.")
             for n in names]
    assert {"double_descent", "tuned_ridge", "lottery", "spirals_by_width", "pruning",
            "lazy_training"} <= set(names)
    for name in names:
        assert callable(getattr(model, name))
        if name[0].islower():
            assert f"`{name}`" in README
