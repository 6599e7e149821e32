"""Run the Python package's tests (ctest: python_package). Fails, naming them, when
numpy, pandas, matplotlib or PyYAML are missing from this interpreter: install
them with scripts/install-deps.sh (Debian's python3-* packages)."""
import importlib
import sys
import unittest
from pathlib import Path

here = Path(__file__).resolve().parent
missing = []
for mod, deb in (("numpy", "python3-numpy"), ("pandas", "python3-pandas"), ("matplotlib", "python3-matplotlib"),
                 ("yaml", "python3-yaml")):
    try:
        importlib.import_module(mod)
    except ImportError:
        missing.append(f"{mod} (Debian: {deb})")
if missing:
    print(f"python_package: {sys.executable} lacks {', '.join(missing)}; scripts/install-deps.sh installs them",
          file=sys.stderr)
    sys.exit(1)
sys.path.insert(0, str(here.parent))
suite = unittest.defaultTestLoader.discover(str(here), top_level_dir=str(here))
result = unittest.TextTestRunner(verbosity=2).run(suite)
sys.exit(0 if result.wasSuccessful() and result.testsRun > 0 else 1)
