"""Event ids drawn from a name (`incoming.name_id`) are exactly the standard library's `uuid.uuid5`: every importer's
ids hang on it, and one that differed would read every stored session again as a new branch."""

from __future__ import annotations

import random
import uuid

import pytest

from sessionscope.sources.aider.importer import NS as AIDER_NS
from sessionscope.store.incoming import name_id


def _names(rng: random.Random, count: int):
    for _ in range(count):
        size = rng.choice((0, 1, 7, 40, 41, 200, 2000))
        alphabet = rng.choice(("ascii", "latin", "wide"))
        top = {"ascii": 0x7E, "latin": 0x2FF, "wide": 0x10FFFF}[alphabet]
        chars = [chr(rng.randint(0x20, top)) for _ in range(size)]
        yield "".join(c for c in chars if not 0xD800 <= ord(c) <= 0xDFFF)


def test_name_id_is_uuid5_on_generated_names_and_namespaces():
    rng = random.Random(61)
    spaces = [uuid.NAMESPACE_DNS, uuid.NAMESPACE_URL, AIDER_NS] + [uuid.UUID(int=rng.getrandbits(128)) for _ in range(20)]
    for name in _names(rng, 20_000):
        ns = rng.choice(spaces)
        assert name_id(ns, name) == str(uuid.uuid5(ns, name)), (ns, name)


def test_name_id_sets_the_version_and_variant_as_uuid5_does():
    # whatever the digest held in those bits, the id says version 5 and RFC 4122's variant, as uuid5's does
    for name in (f"n{i}" for i in range(5_000)):
        want = uuid.uuid5(uuid.NAMESPACE_OID, name)
        got = uuid.UUID(name_id(uuid.NAMESPACE_OID, name))
        assert got == want and got.version == 5 and got.variant == uuid.RFC_4122


def test_a_name_uuid5_cannot_encode_fails_the_same_way():
    with pytest.raises(UnicodeEncodeError):
        uuid.uuid5(uuid.NAMESPACE_DNS, "half \udc80 a pair")
    with pytest.raises(UnicodeEncodeError):
        name_id(uuid.NAMESPACE_DNS, "half \udc80 a pair")
