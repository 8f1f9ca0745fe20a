"""The web inspector at ``/ui`` of ``flowmem serve``: see :mod:`flowmem.server.ui.app`."""
