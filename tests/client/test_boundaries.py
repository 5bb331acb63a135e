"""client/ speaks HTTP only: it imports nothing of the service, the worker or the solvers."""

from __future__ import annotations

import subprocess
import sys

from tests.embedded import ROOT


def test_the_client_imports_nothing_of_the_service():
    code = ("import sys, client, client.cli, client.api; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'service', 'worker', 'solvers', 'flask', "
            "'celery', 'sqlalchemy'}))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "[]"
