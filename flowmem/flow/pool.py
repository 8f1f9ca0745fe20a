"""The backends of one app: created on first use, shared by all ops and runs, closed with the app."""

from __future__ import annotations

from loguru import logger

from flowmem.config.loader import ResolvedConfig
from flowmem.core.backend import Backend, BackendKind
from flowmem.core.errors import RegistryError
from flowmem.core.suggest import unknown


class BackendPool:
    """Creates each configured backend once, on first use, and closes them in reverse order."""

    def __init__(self, resolved: ResolvedConfig):
        self._resolved = resolved
        self._instances: dict[tuple[BackendKind, str], Backend] = {}

    def get(self, kind: BackendKind, name: str) -> Backend:
        """The backend configured as ``<kind>.<name>``."""
        key = (kind, name)
        instance = self._instances.get(key)
        if instance is None:
            setting = self._resolved.backends.get(key)
            if setting is None:
                configured = [n for (k, n) in self._resolved.backends if k == kind]
                raise RegistryError(unknown(f"{kind} entry", name, configured))
            instance = setting.backend_cls(setting.params, name=name)
            self._instances[key] = instance
            logger.debug("created {} '{}' ({})", kind, name, setting.backend_cls.backend_name)
        return instance

    def created(self) -> list[Backend]:
        return list(self._instances.values())

    async def aclose(self) -> None:
        """Close every backend created, newest first; the first error is raised after all were tried."""
        errors: list[BaseException] = []
        while self._instances:
            _, instance = self._instances.popitem()
            try:
                await instance.aclose()
            except Exception as exc:
                errors.append(exc)
        if errors:
            raise errors[0]
