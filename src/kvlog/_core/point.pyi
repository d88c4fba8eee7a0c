from typing import Any

import numpy as np
import numpy.typing as npt
from typing_extensions import Buffer

FOUND: int
NEED: int
DECODE: int
SLOW: int
GROW: int
NO_HEADER: int

def find_batch(
    obj: Buffer, target: int, max_bytes: int = 0, stop_offset: int = ..., cut_end: int = ...
) -> tuple[int, int, int, int, int, int, int, int, bool, int]: ...
def whole_batches(obj: Buffer, max_bytes: int, stop_offset: int = ...) -> tuple[int, int]: ...
def valid_prefix(obj: Buffer, max_timestamp: int = -1, shallow_offset: int = -1) -> tuple[int, int, int, int]: ...
def find_timestamp(obj: Buffer, target: int, start_offset: int) -> tuple[int, int, int, int, int, int]: ...
def prepare_append(
    buf: Buffer,
    out: npt.NDArray[np.uint8],
    first_offset: int,
    log_append_time: int,
    max_message_bytes: int,
    want_codec: int,
    client: bool,
    timestamp_range: bool,
) -> tuple[int, int, int, int, int, int, int, bool, int, int]: ...
def encode_records(
    records: list[Any],
    now: int,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    is_transactional: bool = False,
    base_offset: int = 0,
    partition_leader_epoch: int = -1,
) -> bytes | None: ...
