"""One registry for every extension point: names mapped to "module:attribute" targets, imported on first use,
so listing the names (CLI choices, `--help`, error messages) imports nothing heavy. Search modes, loaders,
extractors, LLM and embedding backends, languages and the CLI's commands each keep one.

Adding an extension is one module plus one `register` line (or one line in the table the registry is built
from); a name registered at run time is seen everywhere the names are read, since they are read live."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from importlib import import_module
from typing import Generic, TypeVar

from graphwright.errors import InvalidRequestError

T = TypeVar("T")


class Registry(Generic[T]):
    """`kind` names what is registered in messages ("mode"), `parameter` the setting or argument that names
    one ("mode", "GRAPHWRIGHT_LLM_BACKEND"); `unknown` builds the error for a name not registered from its
    message (default: `InvalidRequestError`, a caller's mistake)."""

    def __init__(
        self,
        kind: str,
        targets: Mapping[str, str | T] | None = None,
        *,
        parameter: str = "",
        unknown: Callable[[str], Exception] | None = None,
    ) -> None:
        self.kind = kind
        self.parameter = parameter
        self._targets: dict[str, str | T] = dict(targets or {})
        self._loaded: dict[str, T] = {}
        self._unknown = unknown

    def register(self, name: str, target: str | T) -> None:
        """`target`: "module:attribute", imported when first asked for, or the object itself."""
        self._targets[name] = target
        self._loaded.pop(name, None)

    def unregister(self, name: str) -> None:
        self._targets.pop(name, None)
        self._loaded.pop(name, None)

    # Mapping-style registration too, so `monkeypatch.setitem(REGISTRY, name, target)` registers for one test.
    def __setitem__(self, name: str, target: str | T) -> None:
        self.register(name, target)

    def __getitem__(self, name: str) -> str | T:
        return self.target(name)

    def __delitem__(self, name: str) -> None:
        self.unregister(name)

    def names(self) -> tuple[str, ...]:
        return tuple(self._targets)

    def __contains__(self, name: object) -> bool:
        return name in self._targets

    def __iter__(self) -> Iterator[str]:
        return iter(tuple(self._targets))

    def __len__(self) -> int:
        return len(self._targets)

    def target(self, name: str) -> str | T:
        """What `name` was registered as, unimported."""
        self._check(name)
        return self._targets[name]

    def get(self, name: str, default: str | T | None = None) -> str | T | None:
        """What `name` was registered as, unimported, or `default` (a mapping's `get`)."""
        return self._targets.get(name, default)

    def load(self, name: str) -> T:
        """The registered object, imported on first use."""
        self._check(name)
        if name not in self._loaded:
            target = self._targets[name]
            if isinstance(target, str):
                module, _, attribute = target.partition(":")
                self._loaded[name] = getattr(import_module(module), attribute)
            else:
                self._loaded[name] = target
        return self._loaded[name]

    def _check(self, name: str) -> None:
        if name not in self._targets:
            named = f" (`{self.parameter}`)" if self.parameter else ""
            message = f"unknown {self.kind} {name!r}{named}; available: {', '.join(self._targets) or 'none'}"
            raise self._unknown(message) if self._unknown is not None else InvalidRequestError(message)
