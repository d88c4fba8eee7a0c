from typing import Any

import numpy as np
import numpy.typing as npt
from typing_extensions import Buffer, disjoint_base

NEED: int
FAILURE_DTYPE: np.dtype[Any]

@disjoint_base
class Block:
    def __len__(self) -> int: ...

@disjoint_base
class Program:
    @property
    def paths(self) -> list[Any]: ...
    def __new__(
        cls,
        format: int,
        ops: npt.ArrayLike,
        kids: npt.ArrayLike,
        blob: bytes,
        blob_offsets: npt.ArrayLike,
        fail_code: int = 0,
        paths: list[Any] | None = None,
        nslots: int = 0,
    ) -> Program: ...

_Column = tuple[int, int, Block | None, Block | None, Block | None]

@disjoint_base
class Decoder:
    columns: list[tuple[int, int, bool, list[int]]]
    max_items: int
    def __new__(
        cls, format: int, wire: int, errors_null: bool, columns: list[tuple[int, int, bool, list[int]]]
    ) -> Decoder: ...
    def add(self, schema_id: int, indexes: tuple[int, ...] | list[int], program: Program) -> None: ...
    def add_guid(self, guid: bytes, schema_id: int) -> None: ...
    def run(
        self,
        validity: Buffer | None,
        offsets: Buffer,
        data: Buffer,
        array_offset: int,
        length: int,
        start: int = 0,
        ids: npt.ArrayLike | None = None,
    ) -> tuple[int, int]: ...
    def need(self) -> tuple[int | None, tuple[int, ...], bytes | None]: ...
    def last_failure(self) -> tuple[int, int, int, int, int]: ...
    def failures(self) -> npt.NDArray[Any]: ...
    def finish(self) -> tuple[list[_Column], _Column]: ...
