"""``python -m flowmem`` runs the CLI."""

import sys

from flowmem.cli.main import main

sys.exit(main())
