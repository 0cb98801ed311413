"""ONNX Runtime encoding of a packaged sentence-transformers model, exported offline.

The graph is exported once from the package's own weights (`torch.onnx.export` of the
transformer, no hub download) into the quaestio cache (`$QUAESTIO_CACHE` or
~/.cache/quaestio) under `onnx/<name>-<hash of the model files>/`, so a new model version
gets a new graph and two processes racing to export never see a half-written file
(written to a temporary name, then renamed). An int8 graph (dynamic quantization, see
`_quantize_int8`) is derived from the fp32 one the same way. Only the export needs torch and
transformers; encoding needs onnxruntime, numpy and tokenizers.

Pooling is the model's own (mean of the token vectors under the attention mask, then L2
normalisation), so the vectors match `SentenceTransformer.encode` to float rounding.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
import warnings
from functools import lru_cache
from pathlib import Path

import numpy as np

from .errors import BackendUnavailable

PRECISIONS = ("fp32", "int8")
# The files that decide the vectors: a change to any of them means a new export.
_MODEL_FILES = (
    "model.safetensors",
    "pytorch_model.bin",
    "config.json",
    "tokenizer.json",
    "sentence_bert_config.json",
    "modules.json",
    "1_Pooling/config.json",
)


def cache_root() -> Path:
    """`$QUAESTIO_CACHE` or ~/.cache/quaestio (read at call time, so tests can redirect it)."""
    return Path(os.environ.get("QUAESTIO_CACHE") or Path.home() / ".cache" / "quaestio")


@lru_cache(maxsize=8)
def model_hash(folder: str) -> str:
    """A short sha256 of the model files that decide the vectors (weights, config, tokenizer)."""
    digest = hashlib.sha256()
    for name in _MODEL_FILES:
        path = Path(folder) / name
        if path.exists():
            digest.update(name.encode() + b"\0")
            with open(path, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
    return digest.hexdigest()[:16]


def graph_path(name: str, folder: Path, precision: str = "fp32") -> Path:
    """Where the exported graph of the model in `folder` lives in the cache."""
    if precision not in PRECISIONS:
        raise ValueError(
            f"ONNX precision must be one of {', '.join(PRECISIONS)}, got {precision!r}"
        )
    return cache_root() / "onnx" / f"{name}-{model_hash(str(folder))}" / f"model.{precision}.onnx"


_EXPORT_LOCK = threading.Lock()


def ensure_graph(name: str, folder: Path, precision: str = "fp32") -> Path:
    """The cached graph of `precision`, exporting (and quantizing) it first when missing."""
    with _EXPORT_LOCK:
        return _ensure(name, folder, precision)


def _ensure(name: str, folder: Path, precision: str) -> Path:
    path = graph_path(name, folder, precision)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        if precision == "fp32":
            _atomic(path, lambda tmp: _export_fp32(folder, tmp))
        else:
            source = _ensure(name, folder, "fp32")
            _atomic(path, lambda tmp: _quantize_int8(source, tmp))
    return path


def _atomic(path: Path, write) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _export_fp32(folder: Path, out: Path) -> None:
    """Export the transformer (token vectors, before pooling) with dynamic batch and length."""
    try:
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        raise BackendUnavailable(
            "exporting the ONNX embedding graph", "torch transformers"
        ) from exc
    from transformers.utils import logging as hf_logging

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    hf_logging.disable_progress_bar()  # no "Loading weights" bar in a command's output
    model = AutoModel.from_pretrained(str(folder), local_files_only=True).eval()

    class TokenVectors(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    ids = torch.ones((2, 8), dtype=torch.long)
    axes = {0: "batch", 1: "tokens"}
    with torch.no_grad(), warnings.catch_warnings():
        # Tracer warnings on shape checks that hold for every encoder input (mask and ids
        # of one length); the vectors are checked against torch in tests/test_embeddings.py.
        warnings.simplefilter("ignore")
        # The TorchScript exporter: the dynamo one needs onnxscript and gains nothing here.
        torch.onnx.export(
            TokenVectors(model),
            (ids, torch.ones_like(ids), torch.zeros_like(ids)),
            str(out),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["token_vectors"],
            opset_version=17,
            dynamo=False,
            dynamic_axes={
                "input_ids": axes,
                "attention_mask": axes,
                "token_type_ids": axes,
                "token_vectors": axes,
            },
        )


def _quantize_int8(source: Path, out: Path) -> None:
    """int8 weights (per channel) and int8 activations (per tensor, at run time), except in
    the feed-forward down-projections: their inputs come out of GELU with a few large
    outliers that one scale per tensor cannot hold (quantizing them too is 2.0x fp32 but
    drops the cosine to fp32 to 0.985 on FinanceBench pages; without them, 0.995)."""
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise BackendUnavailable("int8 ONNX embeddings", "onnxruntime onnx") from exc
    graph = onnx.load(str(source), load_external_data=False).graph
    down = [n.name for n in graph.node if n.op_type == "MatMul" and _is_down_projection(n.name)]
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # its "consider pre-processing" advice goes to the root logger
    try:
        quantize_dynamic(
            str(source),
            str(out),
            weight_type=QuantType.QInt8,
            per_channel=True,
            nodes_to_exclude=down,
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    finally:
        root.setLevel(level)


def _is_down_projection(node: str) -> bool:
    # BERT names (transformers' BertLayer): layer.N/output/dense is the FFN's second matmul,
    # layer.N/attention/output/dense the attention's output projection.
    return "/output/dense/" in node and "/attention/" not in node


class OnnxEncoder:
    """Token ids in, normalised mean-pooled vectors out, on an ONNX Runtime session."""

    def __init__(
        self, graph: Path, tokenizer_file: Path, max_tokens: int, threads: int | None = None
    ):
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise BackendUnavailable("ONNX embeddings", "onnxruntime") from exc
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Busy-waiting threads burn CPU that other work on a shared machine needs.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if threads:
            options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(
            str(graph), options, providers=["CPUExecutionProvider"]
        )
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self.tokenizer.no_padding()  # batches pad to their own longest text
        self.tokenizer.enable_truncation(max_tokens)

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        return [e.ids for e in self.tokenizer.encode_batch(texts)]

    def encode_ids(self, batch: list[list[int]]) -> np.ndarray:
        """Vectors of one batch of token id lists (padded here to the longest of them)."""
        width = max(len(ids) for ids in batch)
        input_ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, ids in enumerate(batch):
            input_ids[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1
        feeds = {
            "input_ids": input_ids,
            "attention_mask": mask,
            "token_type_ids": np.zeros_like(input_ids),
        }
        tokens = self.session.run(None, {k: v for k, v in feeds.items() if k in self.inputs})[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (tokens * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
