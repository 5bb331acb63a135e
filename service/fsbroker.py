"""The embedded mode's broker: kombu's filesystem transport, with messages written atomically.

kombu writes a message file in place while the consumer may already be moving and reading
it: a worker then reads an empty file, fails to decode it and its consumer dies (seen here
under load: `make run` stopped with "JSONDecodeError: Expecting value"). Here a message is
written under a name the consumer does not look at (``....msg.part``) and renamed once whole;
a rename within a folder is atomic.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from time import monotonic
from typing import Any

from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.utils import json as kombu_json

SCHEME = "pqfilesystem"
_dumps: Callable[[Any], str] = kombu_json.dumps  # kombu's JSON, which its reader decodes


class Channel(filesystem.Channel):
    def _put(self, queue: Any, payload: Any, **kwargs: Any) -> None:  # type: ignore[override]  # as kombu's
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        part = final + ".part"
        with open(part, "wb") as f:
            f.write(_dumps(payload).encode())
        os.replace(part, final)


class Transport(filesystem.Transport):
    Channel = Channel


TRANSPORT_ALIASES.setdefault(SCHEME, f"{__name__}:Transport")
