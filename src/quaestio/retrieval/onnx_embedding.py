"""ONNX Runtime encoding of a packaged sentence-transformers model, built offline.

Each graph is made once from the package's own weights (no hub download) into the quaestio
cache (`$QUAESTIO_CACHE` or ~/.cache/quaestio), in three steps (`RECIPE`):

1. export: `torch.onnx.export` of the transformer (token vectors, before pooling) with eager
   attention, whose pattern ONNX Runtime's BERT fusions recognise (the default sdpa export
   is left unfused);
2. fp32: `onnxruntime.transformers.optimizer.optimize_model(model_type="bert")` fuses each
   layer's attention, LayerNorms and GELU into single kernels: the same vectors, fewer ops;
3. int8: dynamic quantization of the fused graph (`INT8_OPTIONS`).

A graph's file name carries the package version, the model files' hash and a hash of the
recipe and onnxruntime version, so any change makes a new graph. Each file is written to a
temporary name and renamed, with a sha256 beside it that is checked before first use in a
process: a graph that does not match (a truncated copy, a disk error) is rebuilt with a
`GraphCacheWarning`. Only building needs torch and transformers; encoding needs onnxruntime,
numpy and tokenizers.

Pooling is the model's own (mean of the token vectors under the attention mask, then L2
normalisation), so the fp32 vectors match `SentenceTransformer.encode` to float rounding.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import os
import re
import tempfile
import threading
import warnings
from collections.abc import Callable
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
# Dynamic int8 of the fused graph (bench/embedding_speed.py picked it): per-channel int8
# weights with a 7-bit range (on AVX2 without VNNI, full-range u8 x s8 products saturate their
# int16 sums), activations quantized per tensor at run time, in every MatMul but the first
# layer's feed-forward down-projection: its input, out of GELU, has a few channels hundreds of
# times larger than the rest that one scale per tensor cannot hold (quantized, the cosine to
# fp32 falls to 0.986; kept fp32, 0.991 for ~5% of the speed). The fused Attention kernels
# stay fp32 (int8 there gained nothing and cost cosine).
INT8_OPTIONS: dict = {
    "op_types_to_quantize": ["MatMul"],
    "per_channel": True,
    "reduce_range": True,
    "fp32_down_projections": [0],  # layers whose FFN down-projection stays fp32
}
RECIPE = {
    "export": "torch.onnx.export opset 17, eager attention, dynamic batch and tokens",
    "fp32": "onnxruntime.transformers optimize_model bert, opt_level 0",
    "int8": json.dumps(INT8_OPTIONS, sort_keys=True),
}


class GraphCacheWarning(UserWarning):
    """A cached ONNX graph failed its checksum and is being rebuilt."""


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
            digest.update(bytes.fromhex(_sha256(path)))
    return digest.hexdigest()[:16]


def recipe_key(precision: str) -> str:
    """A short hash of the steps that make the graph of `precision` and of onnxruntime's
    version (its fusions and quantizer decide the graph)."""
    steps = ["export", "fp32"] + (["int8"] if precision == "int8" else [])
    text = "|".join(RECIPE[s] for s in steps) + "|ort " + _version("onnxruntime")
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def graph_path(name: str, folder: Path, precision: str = "fp32", package: str = "") -> Path:
    """Where the graph of `precision` of the model in `folder` lives in the cache."""
    if precision not in PRECISIONS:
        raise ValueError(
            f"ONNX precision must be one of {', '.join(PRECISIONS)}, got {precision!r}"
        )
    version = _version(package) if package else "local"
    model = f"{name}-{version}-{model_hash(str(folder))}"
    return cache_root() / "onnx" / model / f"model.{precision}.{recipe_key(precision)}.onnx"


_BUILD_LOCK = threading.Lock()


def ensure_graph(name: str, folder: Path, precision: str = "fp32", package: str = "") -> Path:
    """The checked, cached graph of `precision`, built first when missing or corrupt."""
    with _BUILD_LOCK:
        return _ensure(name, folder, precision, package)


def _ensure(name: str, folder: Path, precision: str, package: str) -> Path:
    path = graph_path(name, folder, precision, package)
    if path.exists() and not _intact(path):
        warnings.warn(
            f"the cached ONNX graph {path} does not match its checksum (truncated or "
            "damaged): rebuilding it from the package's weights",
            GraphCacheWarning,
            stacklevel=3,
        )
        path.unlink()
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        if precision == "fp32":
            with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
                exported = Path(tmp) / "export.onnx"
                _export(folder, exported)
                _write_checked(path, lambda out: _fuse(exported, out, folder))
        else:
            source = _ensure(name, folder, "fp32", package)
            _write_checked(path, lambda out: _quantize_int8(source, out))
    return path


def _intact(path: Path) -> bool:
    """The graph matches the sha256 written beside it (hashed once per state of the two)."""
    sidecar = Path(f"{path}.sha256")
    if not sidecar.exists():
        return False
    graph, check = path.stat(), sidecar.stat()
    return _matches(str(path), graph.st_size, graph.st_mtime_ns, check.st_mtime_ns)


@lru_cache(maxsize=16)
def _matches(path: str, size: int, mtime_ns: int, sidecar_mtime_ns: int) -> bool:
    return Path(f"{path}.sha256").read_text().strip() == _sha256(Path(path))


def _write_checked(path: Path, write: Callable[[Path], None]) -> None:
    """Write to a temporary name, then rename the graph and its checksum into place."""
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp)
        sidecar = Path(str(tmp) + ".sha256")
        sidecar.write_text(_sha256(tmp) + "\n")
        os.replace(tmp, path)
        os.replace(sidecar, str(path) + ".sha256")
    finally:
        for leftover in (tmp, Path(str(tmp) + ".sha256")):
            leftover.unlink(missing_ok=True)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _export(folder: Path, out: Path) -> None:
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
    model = AutoModel.from_pretrained(
        str(folder), local_files_only=True, attn_implementation="eager"
    ).eval()

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


def _fuse(source: Path, out: Path, folder: Path) -> None:
    """ONNX Runtime's BERT fusions, with the heads and width of the model's config."""
    try:
        from onnxruntime.transformers.optimizer import optimize_model
    except ImportError as exc:
        raise BackendUnavailable("ONNX embeddings", "onnxruntime onnx") from exc
    config = json.loads((folder / "config.json").read_text())
    with _quiet():
        model = optimize_model(
            str(source),
            model_type="bert",
            num_heads=config["num_attention_heads"],
            hidden_size=config["hidden_size"],
            opt_level=0,  # ORT's own graph passes run again at session start
        )
    fused = model.get_fused_operator_statistics()
    if not fused.get("Attention"):  # an export whose pattern the fusions no longer read
        warnings.warn(
            f"ONNX Runtime fused no attention in the embedding graph ({fused}): it runs "
            "unfused, slower",
            GraphCacheWarning,
            stacklevel=4,
        )
    model.save_model_to_file(str(out))


def _quantize_int8(source: Path, out: Path, options: dict | None = None) -> None:
    """Dynamic int8 of the fused graph with `options` (default `INT8_OPTIONS`; the bench
    passes others to compare)."""
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise BackendUnavailable("int8 ONNX embeddings", "onnxruntime onnx") from exc
    options = dict(INT8_OPTIONS if options is None else options)
    layers = set(options.pop("fp32_down_projections", ()))
    graph = onnx.load(str(source), load_external_data=False).graph
    keep = [n.name for n in graph.node if n.op_type == "MatMul" and _down_layer(n.name) in layers]
    if len(keep) != len(layers):  # names changed: quantizing them would cost the cosine
        raise ValueError(f"no feed-forward down-projection of layers {sorted(layers)} found")
    with _quiet():
        quantize_dynamic(
            str(source),
            str(out),
            weight_type=QuantType.QInt8,
            nodes_to_exclude=keep,
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
            **options,
        )


def _down_layer(node: str) -> int | None:
    """The layer of a feed-forward down-projection MatMul, from transformers' BERT names
    (`/encoder/layer.N/output/dense/MatMul`; `layer.N/attention/output/dense` is the
    attention's output projection), else None."""
    match = re.search(r"/layer\.(\d+)/output/dense/", node)
    return int(match.group(1)) if match else None


class _quiet:
    """The optimizer and quantizer log advice to the root logger: keep it out of output."""

    def __enter__(self):
        self.level = logging.getLogger().level
        logging.getLogger().setLevel(logging.ERROR)

    def __exit__(self, *exc):
        logging.getLogger().setLevel(self.level)


class OnnxEncoder:
    """Token ids in, normalised mean-pooled vectors out, on an ONNX Runtime session.

    `threads` sets intra-op threads (ONNX Runtime's default: one per physical core).
    """

    def __init__(
        self, graph: Path, tokenizer_file: Path, max_tokens: int, threads: int | None = None
    ):
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise BackendUnavailable("ONNX embeddings", "onnxruntime") from exc
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        # The graph is fused offline; what ORT adds on top costs ~0.2 CPU s per session,
        # and saving its result (optimized_model_filepath) loads no faster.
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL  # one chain of ops
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
