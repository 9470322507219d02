"""Review R1 (commit 40e4a22): static_imports does not see names reached through a package's lazy_exports.

``from icml26.nn import train_lm`` is an import of ``icml26.nn.train`` at run time (``icml26.nn.__getattr__``
built by ``core.registry.lazy_exports`` imports it), but the AST walk only records ``icml26.nn`` and the
non-module ``icml26.nn.train_lm``; ``icml26.nn/__init__.py`` names its submodules only as strings. So a module
imported only this way, in a function body, is missing from the static closure (and from ``code_digest``,
which is static only). Fixed: ``fingerprint._lazy_map`` reads the package's lazy-export table.
"""

from icml26.core import fingerprint as F


def test_a_lazily_exported_name_counts_its_submodule():
    # token_mixers' experiment imports train_lm only as `from icml26.nn import train_lm` in function bodies
    got = F.static_imports({"icml26.llm.token_mixers.experiment"}, "icml26.llm.token_mixers")
    assert "icml26.nn" in got  # the package is seen ...
    assert "icml26.nn.train" in got  # ... but not the module that defines train_lm


def test_a_lazily_exported_class_counts_its_submodule():
    # cfg_subgrammars' setting.make_model: `from icml26.nn import LMConfig, TinyLM` inside the function
    got = F.static_imports({"icml26.llm.cfg_subgrammars.setting"}, "icml26.llm.cfg_subgrammars")
    assert "icml26.nn.transformer" in got
