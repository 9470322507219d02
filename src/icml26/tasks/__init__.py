"""Generated tasks shared by the papers: a synthetic knowledge base with retrieval, and verifiable
arithmetic. Every generator is seeded and uses only numpy's ``Generator`` (never Python's
``hash``), so the same seed gives the same data in every process.
"""

from icml26.core.registry import lazy_exports

_EXPORTS = {"KnowledgeBase": ".kb", "Fact": ".kb", "Question": ".kb", "BM25Retriever": ".kb",
            "make_knowledge_base": ".kb", "ArithmeticProblem": ".arithmetic", "arithmetic_problems": ".arithmetic",
            "extract_answer": ".arithmetic", "is_correct": ".arithmetic"}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = list(_EXPORTS)
