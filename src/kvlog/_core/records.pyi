from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from typing_extensions import Buffer, disjoint_base

OK: int
END: int
PARTIAL: int
INNER: int
FULL: int
BATCH_DTYPE: np.dtype[np.void]
INLINE_CODECS: str

def set_buffer_cache_limit(limit: int | None) -> int | None: ...
def buffer_cache_bytes() -> int: ...

@disjoint_base
class OwnedBuffer:
    def __len__(self) -> int: ...

def pread_owned(fd: int, size: int, offset: int) -> OwnedBuffer: ...

def scan(
    obj: Buffer, start: int, end: int, out: npt.NDArray[np.void], with_crc: bool = True, stop_on_crc: bool = False
) -> tuple[int, int, int, Exception | None]: ...

@disjoint_base
class Decoder:
    def __new__(
        cls, include_headers: bool = True, check_crc: bool = True, include_control: bool = False,
        include_values: bool = True, limit: int = -1,
    ) -> Decoder: ...
    @property
    def rows(self) -> int: ...
    @property
    def current(self) -> dict[str, int]: ...
    def run(self, obj: Buffer, start: int, end: int) -> tuple[int, int]: ...
    def fits(self, payload_len: int) -> bool: ...
    def inner(self, payload: Buffer, base_position: int = 0) -> None: ...
    def finish(self) -> dict[str, Any]: ...

@disjoint_base
class Column:
    def __len__(self) -> int: ...
    @staticmethod
    def from_sequence(seq: Sequence[Any], what: str = "value") -> Column: ...
    @staticmethod
    def from_rows(
        data: Buffer, offsets: npt.NDArray[np.int64], valid: npt.NDArray[np.uint8] | None,
        rows: npt.NDArray[np.int64],
    ) -> Column: ...
    @staticmethod
    def from_buffers(
        data: Buffer, offsets: npt.NDArray[np.int64], valid: npt.NDArray[np.uint8] | None = None
    ) -> Column: ...
    @staticmethod
    def nulls(n: int) -> Column: ...

def encode_v2(
    keys: Column,
    values: Column,
    timestamps: npt.NDArray[np.int64],
    offsets: npt.NDArray[np.int64] | None,
    hkeys: Column | None,
    hvals: Column | None,
    hoff: npt.NDArray[np.int64] | None,
    *,
    base_offset: int,
    compression: int,
    timestamp_type: int,
    log_append_time: int,
    producer_id: int,
    producer_epoch: int,
    base_sequence: int,
    partition_leader_epoch: int,
    is_transactional: bool,
    is_control: bool,
    records_per_batch: int,
    max_batch_bytes: int,
    compress: Callable[[bytes], bytes],
    batch_ends: npt.NDArray[np.int64] | None = None,
    batch_last_offsets: npt.NDArray[np.int64] | None = None,
    batch_horizons: npt.NDArray[np.int64] | None = None,
    batch_base_offsets: npt.NDArray[np.int64] | None = None,
) -> bytes: ...
def encode_v2_empty(
    *,
    base_offset: int,
    last_offset_delta: int,
    base_timestamp: int,
    max_timestamp: int,
    producer_id: int,
    producer_epoch: int,
    base_sequence: int,
    partition_leader_epoch: int,
    attributes: int,
) -> bytes: ...
def encode_legacy(
    magic: int,
    keys: Column,
    values: Column,
    timestamps: npt.NDArray[np.int64],
    offsets: npt.NDArray[np.int64] | None,
    *,
    base_offset: int,
    compression: int,
    timestamp_type: int,
    log_append_time: int,
    records_per_batch: int,
    max_batch_bytes: int,
    compress: Callable[[bytes], bytes],
) -> bytes: ...
def int64_list(seq: list[Any], out: npt.NDArray[np.int64]) -> bool: ...
def read_varint(obj: Buffer, pos: int = 0) -> tuple[int, int]: ...
def read_varlong(obj: Buffer, pos: int = 0) -> tuple[int, int]: ...
def write_varint(value: int) -> bytes: ...
def write_varlong(value: int) -> bytes: ...
def patch_v2_header(
    buf: Buffer,
    pos: int,
    *,
    base_offset: int | None = None,
    partition_leader_epoch: int | None = None,
    max_timestamp: int | None = None,
    attributes: int | None = None,
    recompute_crc: bool = True,
) -> None: ...
def assign_offsets(
    buf: Buffer, positions: npt.NDArray[np.int64], first_offset: int, log_append_time: int = -1
) -> int: ...
def index_plan(
    sizes: npt.NDArray[np.int32],
    last_offsets: npt.NDArray[np.int64],
    max_timestamps: npt.NDArray[np.int64],
    start_position: int,
    bytes_since_last_entry: int,
    interval: int,
    max_ts: int,
    shallow_offset: int,
    last_time_entry_ts: int,
) -> tuple[
    npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], int, int, int
]: ...
