"""The analyst's curation loop: coverage reports, candidate discovery, review and admission.

Reports and admission need only the core install; discovery needs the `curation` extra
(sentence-transformers through `quaestio[retrieval]`, scikit-learn, hdbscan), imported only
when it runs.
"""

from .closed_sets import Loaded, bundled_closed_set, load_closed_set
from .corpus import CorpusCoverage, corpus_coverage, detect_language, read_corpus
from .diff import reparse_changes, satellite_diff
from .discover import Discovery, cluster, discover_candidates, write_candidates
from .phrases import extract_phrases
from .reports import CoverageReport, coverage_report
from .review import REVIEW_COLUMNS, Admission, admit_candidates, read_review, rejected_phrases

__all__ = [
    "REVIEW_COLUMNS",
    "Admission",
    "CorpusCoverage",
    "CoverageReport",
    "Discovery",
    "Loaded",
    "admit_candidates",
    "bundled_closed_set",
    "cluster",
    "corpus_coverage",
    "coverage_report",
    "detect_language",
    "discover_candidates",
    "extract_phrases",
    "load_closed_set",
    "read_corpus",
    "read_review",
    "rejected_phrases",
    "reparse_changes",
    "satellite_diff",
    "write_candidates",
]
