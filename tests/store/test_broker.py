"""The embedded mode's filesystem broker writes each message whole before a consumer can see it."""

from __future__ import annotations

import os
from queue import Empty

import pytest
from kombu import Connection

from store import broker


def test_a_message_being_written_is_invisible_until_whole(tmp_path, monkeypatch):
    folders = {name: str(tmp_path / name) for name in ("data", "processed")}
    for folder in folders.values():
        os.makedirs(folder)
    options = {"data_folder_in": folders["data"], "data_folder_out": folders["data"],
               "processed_folder": folders["processed"], "store_processed": False}
    with Connection(f"{broker.SCHEME}://", transport_options=options) as conn:
        channel = conn.default_channel
        assert isinstance(channel, broker.Channel)
        renamed = []
        rename = os.replace

        def replace(part: str, final: str) -> None:
            assert part.endswith(".msg.part") and os.path.getsize(part) > 0
            with pytest.raises(Empty):  # the consumer passes over the file being written
                channel._get("jobs")
            renamed.append(final)
            rename(part, final)

        monkeypatch.setattr(broker.os, "replace", replace)
        channel._put("jobs", {"body": "hello", "headers": {"n": 1}})
        assert len(renamed) == 1
        assert channel._get("jobs") == {"body": "hello", "headers": {"n": 1}}
        with pytest.raises(Empty):
            channel._get("jobs")
