"""The local model of search by meaning (#34): static embeddings (model2vec), fetched once, run on the CPU.

A static model looks every token's vector up in a table and averages them: no network at search time, nothing
leaves the machine, thousands of texts a second on one core (a transformer is ~100× slower on a laptop). The
model is a Hugging Face repository (`minishlab/potion-base-8M` by default: 256 dimensions, ~30 MB) fetched on
first use into the app's cache with Hugging Face's own client (resumable: a fetch cut off goes on from where it
stopped), or a local folder in model2vec's format (config.json, model.safetensors, tokenizer.json).

Everything here needs the `semantic` extra; without it MissingExtra names it.
"""

from __future__ import annotations

import functools
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from sessionscope.errors import Cancelled, InvalidInput, MissingExtra, SessionscopeError

DEFAULT_MODEL = "minishlab/potion-base-8M"
FILES = ("config.json", "tokenizer.json", "model.safetensors")  # model2vec's own layout, smallest first
MAX_CHARS = 4000  # a text's start is what it is about; the model reads 512 tokens at most anyway

Progress = Callable[[int, int, str], None]  # bytes done, bytes total, file


class ModelMissing(SessionscopeError):
    """The model is neither a folder here nor fetched yet (a search never fetches: `sessionscope embed` does)."""


def _need(module: str):
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra("Search by meaning", "semantic", module) from None


def models_dir() -> Path:
    """Where fetched models are kept (Hugging Face's cache layout), beside the app's other caches."""
    import platformdirs
    return Path(platformdirs.user_cache_dir("sessionscope")) / "models"


def is_folder(ref: str) -> bool:
    """A path, not a repository id ("owner/name"): a folder here, or written as a path."""
    return ref.startswith(("/", "~", ".")) or "\\" in ref or ":" in ref or Path(ref).expanduser().is_dir()


def local_path(ref: str) -> Path | None:
    """The folder `ref` is, or where its fetched files are; None when it has not been fetched."""
    if is_folder(ref):
        folder = Path(ref).expanduser()
        if not folder.is_dir():
            raise InvalidInput(f"the model folder {folder} does not exist")
        return folder
    hub = _need("huggingface_hub")
    found = [hub.try_to_load_from_cache(ref, name, cache_dir=models_dir()) for name in FILES]
    if all(isinstance(f, str) for f in found):
        return Path(found[0]).parent
    return None


def fetch(ref: str, progress: Progress | None = None, cancel: threading.Event | None = None) -> Path:
    """The model's folder, fetched first when it is not here yet, file by file with `progress` (bytes of the
    file being fetched); `cancel` stops it (Cancelled), and the next fetch resumes the cut-off file."""
    have = local_path(ref)
    if have is not None:
        return have
    hub = _need("huggingface_hub")
    import tqdm

    class Bar(tqdm.tqdm):
        """huggingface_hub reports a file's bytes through a tqdm: ours passes them on and stops when asked."""

        def __init__(self, *args, **kwargs):
            kwargs["disable"] = False
            kwargs["file"] = _Null()
            super().__init__(*args, **kwargs)

        def update(self, n=1):
            if cancel is not None and cancel.is_set():
                raise Cancelled("the model's fetch was cancelled; it goes on from here next time")
            out = super().update(n)
            if progress is not None:
                progress(int(self.n), int(self.total or 0), self._name)
            return out

    folder = None
    for name in FILES:
        if cancel is not None and cancel.is_set():
            raise Cancelled("the model's fetch was cancelled; it goes on from here next time")
        Bar._name = name
        try:
            # HF_ENDPOINT read now, not when the hub's client was imported: a mirror named for this fetch counts
            path = hub.hf_hub_download(ref, name, cache_dir=models_dir(), tqdm_class=Bar,
                                       endpoint=os.environ.get("HF_ENDPOINT") or None)
        except Cancelled:
            raise
        except Exception as exc:  # the hub's own errors (offline, no such repository) say what went wrong
            raise SessionscopeError(f"could not fetch the model {ref!r} ({name}): {exc}") from exc
        folder = Path(path).parent
    return folder


class _Null:
    def write(self, _s):
        pass

    def flush(self):
        pass


@dataclass
class Embedder:
    """A loaded model: `encode` gives each text's unit vector (float32, one row a text)."""

    name: str
    model: object

    @property
    def dim(self) -> int:
        return self.model.dim

    def encode(self, texts: list[str]):
        import numpy as np
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # one process: the app's and the CLI's embedding job is already a process of its own
        out = self.model.encode([t[:MAX_CHARS] for t in texts], use_multiprocessing=False, normalize=True)
        return np.asarray(out, dtype=np.float32)


@functools.lru_cache(maxsize=2)
def _load(folder: str, name: str) -> Embedder:
    m2v = _need("model2vec")
    try:
        return Embedder(name, m2v.StaticModel.from_pretrained(folder, force_download=False))
    except Exception as exc:  # a folder that is not a model2vec model: say which and why
        raise InvalidInput(f"{folder} is not a model2vec model: {exc}") from exc


def load(ref: str) -> Embedder:
    """The model `ref` names (a folder, or a repository fetched before); ModelMissing when not fetched."""
    folder = local_path(ref)
    if folder is None:
        raise ModelMissing(f"the model {ref!r} has not been fetched yet: `sessionscope embed` fetches it")
    return _load(str(folder), ref)
