"""A tiny static embedding model in model2vec's own format, for the tests of search by meaning (#34).

Words of one topic point the same way (plus a little noise), so texts that say the same in other words lie
near each other, as they do with a real model; sessionscope loads it with model2vec's own loader. Built with
the `tokenizers` library and saved with model2vec's `save_pretrained`: the files a fetched model has.
"""

from __future__ import annotations

from pathlib import Path

TOPICS = {
    "caching": "cache caching cached memoize memoization memo lru ttl evict eviction stale warm",
    "database": "database postgres postgresql sqlite sql schema migration table index query rows",
    "network": "retry retries backoff jitter timeout socket connection http request latency",
    "testing": "test tests pytest fixture assert flaky failing passing suite coverage",
    "ui": "button window dialog widget layout screenshot menu click theme dark",
}
FILLER = "the a an of to and in on for with is it this that we i you should fix add make use why how what"


def build(folder: Path, dim: int = 32, seed: int = 7) -> Path:
    import numpy as np
    from model2vec import StaticModel
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    rng = np.random.default_rng(seed)
    words: list[tuple[str, int | None]] = [("[UNK]", None), ("[PAD]", None)]
    for t, topic in enumerate(TOPICS.values()):
        words += [(w, t) for w in topic.split()]
    words += [(w, None) for w in FILLER.split()]
    vocab = {w: i for i, (w, _) in enumerate(words)}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    vectors = np.zeros((len(words), dim), dtype=np.float32)
    for i, (_, topic) in enumerate(words):
        noise = rng.normal(0, 0.15, dim)
        if topic is None:  # a filler word says little: short, in no topic's direction
            vectors[i] = noise * 0.3
        else:
            vectors[i, topic] = 1.0
            vectors[i] += noise
    StaticModel(vectors, tok, normalize=True).save_pretrained(folder)
    return folder
