"""Making the entries of API_TOKENS, METRICS_TOKEN and ADMIN_TOKENS (service.auth reads them):

    python -m service.tokens new alice     # a fresh token for alice, and her API_TOKENS entry
    python -m service.tokens hash < file   # the sha256:<hex> form of a token (first line)

With a terminal, ``hash`` asks for the token without echoing it. A module of its own, apart
from service.auth, which the app imports before ``-m`` could run it.
"""

from __future__ import annotations

import argparse
import getpass
import secrets
import sys

from service.auth import DIGEST_PREFIX, TokenSettingError, check_name, digest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.tokens", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("hash", help="read a token on standard input; print its sha256:<hex> form")
    new = sub.add_parser("new", help="make a token for a client; print it and its API_TOKENS entry")
    new.add_argument("name")
    args = parser.parse_args(argv)
    if args.command == "hash":
        token = getpass.getpass("token: ") if sys.stdin.isatty() else sys.stdin.readline().strip()
        if not token:
            parser.error("no token on standard input")
        print(DIGEST_PREFIX + digest(token).hex())
        return 0
    try:
        check_name(args.name, "NAME")
    except TokenSettingError as exc:
        parser.error(str(exc))
    token = secrets.token_urlsafe(32)
    print(f"token (give it to the client; it is shown once): {token}")
    print(f"API_TOKENS entry: {args.name}:{DIGEST_PREFIX}{digest(token).hex()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
