"""The users' client of puzzle-queue: a Python API (:class:`Client`) and the `puzzle-queue` command.

It speaks HTTP only and imports nothing of the service, the worker or the solvers (a test checks).
"""

from client.api import DEFAULT_URL, Client, valid_signature, valid_timestamped_signature
from client.errors import (
    ApiError,
    Busy,
    Conflict,
    Forbidden,
    InvalidRequest,
    NotFound,
    TooLarge,
    Unauthorized,
)

__all__ = ["DEFAULT_URL", "ApiError", "Busy", "Client", "Conflict", "Forbidden", "InvalidRequest", "NotFound",
           "TooLarge", "Unauthorized", "valid_signature", "valid_timestamped_signature"]
