"""The wire format: frames, the encoder inside the sandbox and the decoder in the server."""

from __future__ import annotations

import io
import json
import math
import struct
from typing import ClassVar

import numpy as np
import pytest
import torch

from graders.sandbox.encode import Encoder
from graders.sandbox.records import note_call, start_recording, stop_recording
from graders.sandbox.wire import (
    DTYPES,
    MAGIC,
    MAX_CALLS,
    MAX_DEPTH,
    MAX_HEADER,
    MAX_NODES,
    MAX_STR,
    PREFIX_SIZE,
    ArrayObs,
    CallsObs,
    Frame,
    FrameType,
    ObjectObs,
    TensorObs,
    WireError,
    decode_value,
    frame_bytes,
    next_frame,
    pack,
    read_frame,
    split_frames,
)

MAX_BODY = 1024 * 1024
MiB = 1024 * 1024


def raw_frame(header: bytes, body: bytes = b"", magic: bytes = MAGIC) -> bytes:
    """A frame built by hand, so that it can break the rules ``pack`` enforces."""
    return struct.pack("<4sIQ", magic, len(header), len(body)) + header + body


def via_read_frame(data: bytes) -> Frame | None:
    return read_frame(io.BytesIO(data).read, MAX_BODY)


def via_next_frame(data: bytes) -> Frame | None:
    return next_frame(data, MAX_BODY)[0]


def via_split_frames(data: bytes) -> Frame | None:
    frames, _ = split_frames(data, MAX_BODY)
    return frames[0] if frames else None


READERS = pytest.mark.parametrize(
    "read",
    [via_read_frame, via_next_frame, via_split_frames],
    ids=["read_frame", "next_frame", "split_frames"],
)


def roundtrip(value: object, max_bytes: int = MiB) -> object:
    """Encode as the sandbox does, send through a frame, decode as the server does."""
    encoder = Encoder(max_bytes)
    node = encoder.value(value)
    frame = via_read_frame(pack({"obs": node}, encoder.body))
    assert frame is not None
    return decode_value(frame.header["obs"], frame.body)


# --- frames ---------------------------------------------------------------------------


class TestFrames:
    HEADER: ClassVar[dict] = {"type": "test", "name": "short", "n": [1, 2.5, None, True], "s": "é"}

    @READERS
    @pytest.mark.parametrize("body", [b"", b"\x00\x01payload\xff"], ids=["no-body", "body"])
    def test_round_trip(self, read, body):
        assert read(pack(self.HEADER, body)) == Frame(self.HEADER, body)

    def test_read_frame_reads_consecutive_frames_then_none_at_clean_eof(self):
        stream = io.BytesIO(pack({"a": 1}, b"xy") + pack({"b": 2}) + pack({"c": 3}, b"z"))
        frames = [read_frame(stream.read, MAX_BODY) for _ in range(4)]
        assert frames == [Frame({"a": 1}, b"xy"), Frame({"b": 2}), Frame({"c": 3}, b"z"), None]

    def test_read_frame_handles_short_reads(self):
        data = io.BytesIO(pack({"a": [1, 2, 3]}, b"0123456789"))
        assert read_frame(lambda n: data.read(min(n, 3)), MAX_BODY) == Frame(
            {"a": [1, 2, 3]}, b"0123456789"
        )

    def test_split_frames_keeps_the_incomplete_rest(self):
        first, second, third = pack({"a": 1}, b"x"), pack({"b": 2}), pack({"c": 3}, b"body")
        frames, rest = split_frames(first + second + third[:-2], MAX_BODY)
        assert frames == [Frame({"a": 1}, b"x"), Frame({"b": 2})]
        assert rest == third[:-2]
        frames, rest = split_frames(rest + third[-2:], MAX_BODY)
        assert frames == [Frame({"c": 3}, b"body")]
        assert rest == b""

    @pytest.mark.parametrize(
        "cut",
        [0, 1, PREFIX_SIZE - 1, PREFIX_SIZE, PREFIX_SIZE + 3],
        ids=["empty", "one-byte", "partial-prefix", "prefix-only", "partial-header"],
    )
    def test_next_frame_waits_for_a_whole_frame(self, cut):
        data = pack({"a": 1}, b"body")
        assert next_frame(data[:cut], MAX_BODY) == (None, 0)
        assert next_frame(data[:-1], MAX_BODY) == (None, 0)

    def test_next_frame_returns_the_length_it_used(self):
        data = pack({"a": 1}, b"body")
        frame, used = next_frame(data + b"trailing", MAX_BODY)
        assert frame == Frame({"a": 1}, b"body")
        assert used == len(data)

    def test_next_frame_reads_from_an_offset(self):
        first, second = pack({"a": 1}, b"x"), pack({"b": 2}, b"body")
        frame, used = next_frame(first + second, MAX_BODY, start=len(first))
        assert frame == Frame({"b": 2}, b"body")
        assert used == len(second)
        assert next_frame(first + second[:-1], MAX_BODY, start=len(first)) == (None, 0)

    def test_a_frame_read_keeps_its_header_bytes_and_is_written_back_as_read(self):
        raw = b'{ "type": "test", "s": "\xc3\xa9", "x": 1e5 }'
        data = MAGIC + struct.pack("<IQ", len(raw), 2) + raw + b"ab"
        for frame in (next_frame(data, MAX_BODY)[0], read_frame(io.BytesIO(data).read, MAX_BODY)):
            assert frame is not None
            assert frame.raw_header == raw
            assert frame == Frame({"type": "test", "s": "é", "x": 100000.0}, b"ab")
            assert frame_bytes(frame) == data
        built = Frame({"type": FrameType.DONE}, b"z")
        assert built.raw_header == b""
        assert frame_bytes(built) == pack({"type": "done"}, b"z")

    def test_a_number_past_the_float_range_is_refused(self):
        # It would read as an infinity, which no header may hold (and none could be
        # packed again with): the same as the JSON constant Infinity.
        for number in (b"1e400", b"-1e400", b"1" * 400 + b".0"):
            raw = b'{"type":"test","duration_ms":' + number + b"}"
            with pytest.raises(WireError, match="out of the float range"):
                next_frame(MAGIC + struct.pack("<IQ", len(raw), 0) + raw, MAX_BODY)

    def test_pack_refuses_a_header_over_the_limit(self):
        with pytest.raises(WireError, match=f"exceeds {MAX_HEADER}"):
            pack({"s": "x" * MAX_HEADER})

    def test_pack_refuses_non_finite_floats_in_the_header(self):
        with pytest.raises(ValueError):
            pack({"x": math.nan})

    @READERS
    @pytest.mark.parametrize(
        ("data", "match"),
        [
            (raw_frame(b"{}", magic=b"PKL1"), "magic"),
            (
                struct.pack("<4sIQ", MAGIC, MAX_HEADER + 1, 0) + b"{}",
                f"header of {MAX_HEADER + 1} bytes exceeds {MAX_HEADER}",
            ),
            (
                struct.pack("<4sIQ", MAGIC, 2, MAX_BODY + 1) + b"{}",
                f"body of {MAX_BODY + 1} bytes exceeds {MAX_BODY}",
            ),
            (raw_frame(b"[1, 2]"), "not a JSON object"),
            (raw_frame(b'"text"'), "not a JSON object"),
            (raw_frame(b"null"), "not a JSON object"),
            (raw_frame(b'{"a": "\xff\xfe"}'), "not valid JSON"),
            (raw_frame(b'{"a": '), "not valid JSON"),
            (raw_frame(b""), "not valid JSON"),
        ],
        ids=[
            "bad-magic",
            "header-over-max",
            "body-over-max",
            "array-header",
            "string-header",
            "null-header",
            "invalid-utf8",
            "invalid-json",
            "empty-header",
        ],
    )
    def test_rejects(self, read, data, match):
        with pytest.raises(WireError, match=match):
            read(data)

    @pytest.mark.parametrize(
        "cut",
        [1, PREFIX_SIZE - 1, PREFIX_SIZE, PREFIX_SIZE + 4, -1],
        ids=["in-prefix", "end-of-prefix", "after-prefix", "in-header", "in-body"],
    )
    def test_read_frame_rejects_a_truncated_stream(self, cut):
        data = pack({"name": "short"}, b"0123456789")
        with pytest.raises(WireError, match=r"stream ended \d+ bytes before the end of a frame"):
            via_read_frame(data[:cut])


# --- values: round trips --------------------------------------------------------------


class Opaque:
    def __repr__(self):
        raise RuntimeError("a learner-defined __repr__ must not run")


class TestRoundTrip:
    @pytest.mark.parametrize(
        "value",
        [
            None,
            True,
            False,
            0,
            -7,
            2**200,
            0.0,
            -2.5,
            1e-300,
            "",
            "héllo ✓",
            [],
            (),
            [1, "a", None],
            (1, (2, [3, (4,)])),
            {},
            {"a": 1, "b": [2, 3]},
            {-1: "x", 1: "y", 3: "z"},
            {(0, 1): "pair", "k": 1, 2: (3,)},
            {"nested": {"deeper": {1: [None, {"x": ()}]}}},
        ],
        ids=[
            "none",
            "true",
            "false",
            "zero",
            "negative-int",
            "big-int",
            "float-zero",
            "float",
            "tiny-float",
            "empty-string",
            "unicode-string",
            "empty-list",
            "empty-tuple",
            "list",
            "nested-tuples",
            "empty-dict",
            "str-keys",
            "int-keys",
            "tuple-keys",
            "nested-dicts",
        ],
    )
    def test_plain_values(self, value):
        got = roundtrip(value)
        assert got == value
        assert repr(got) == repr(value)  # lists stay lists and tuples stay tuples

    def test_lists_and_tuples_stay_distinct(self):
        got = roundtrip({"l": [1, 2], "t": (1, 2), "nested": [(1,), [1]]})
        assert type(got["l"]) is list
        assert type(got["t"]) is tuple
        assert [type(x) for x in got["nested"]] == [tuple, list]

    def test_bools_stay_bools(self):
        got = roundtrip([True, 1, False, 0])
        assert [type(x) for x in got] == [bool, int, bool, int]

    @pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
    def test_non_finite_floats(self, value):
        got = roundtrip([value])[0]
        assert type(got) is float
        assert repr(got) == repr(value)

    def test_very_large_int_becomes_an_object(self):
        assert roundtrip(2**300) == ObjectObs("int", "a very large integer")

    @pytest.mark.parametrize(
        "array",
        [
            np.array(3.5),
            np.array(7, dtype=np.int32),
            np.zeros((0,)),
            np.zeros((0, 3), dtype=np.int16),
            np.arange(6, dtype=np.float32).reshape(2, 3),
            np.arange(24, dtype=np.int64).reshape(2, 3, 4) - 12,
            np.array([True, False, True]),
            np.array([0, 255], dtype=np.uint8),
            np.array([2**64 - 1], dtype=np.uint64),
            np.array([1.5, -2.25], dtype=np.float16),
            np.array([1 + 2j, -3j], dtype=np.complex64),
            np.array([[1 + 2j], [np.nan]], dtype=np.complex128),
            np.array([np.nan, np.inf, -np.inf, -0.0]),
            np.arange(12.0).reshape(3, 4).T,
            np.arange(12.0).reshape(3, 4)[::2, ::-1],
            np.asfortranarray(np.arange(6, dtype=np.int8).reshape(2, 3)),
            np.arange(5, dtype=">f8"),
            np.arange(5, dtype=">i4"),
        ],
        ids=[
            "0d-float",
            "0d-int32",
            "empty",
            "empty-2d",
            "float32-2d",
            "int64-3d",
            "bool",
            "uint8",
            "uint64",
            "float16",
            "complex64",
            "complex128",
            "non-finite",
            "transposed",
            "strided",
            "fortran",
            "big-endian-float",
            "big-endian-int",
        ],
    )
    def test_arrays(self, array):
        got = roundtrip(array)
        assert type(got) is ArrayObs
        assert got.scalar is False
        assert type(got.values) is np.ndarray
        assert got.values.dtype == array.dtype.newbyteorder("=")
        assert got.values.dtype.isnative
        assert got.values.shape == array.shape
        np.testing.assert_array_equal(got.values, array)

    def test_every_allowed_dtype_round_trips(self):
        arrays = [np.arange(4).astype(name).reshape(2, 2) for name in sorted(DTYPES)]
        got = roundtrip(arrays)
        assert [a.values.dtype.name for a in got] == sorted(DTYPES)
        for sent, obs in zip(arrays, got, strict=True):
            np.testing.assert_array_equal(obs.values, sent)

    def test_decoded_arrays_are_writable_copies(self):
        got = roundtrip(np.arange(3.0))
        got.values[0] = 9.0  # frombuffer alone would give a read-only view of the body
        assert got.values.tolist() == [9.0, 1.0, 2.0]

    @pytest.mark.parametrize(
        "scalar",
        [
            np.float64(1.5),
            np.float32(-0.25),
            np.float16(2.0),
            np.int64(-3),
            np.int8(7),
            np.uint16(65535),
            np.bool_(True),
            np.complex64(1 - 2j),
            np.float64(np.nan),
        ],
        ids=[
            "float64",
            "float32",
            "float16",
            "int64",
            "int8",
            "uint16",
            "bool",
            "complex64",
            "nan",
        ],
    )
    def test_numpy_scalars(self, scalar):
        got = roundtrip(scalar)
        assert type(got) is ArrayObs
        assert got.scalar is True
        assert type(got.values) is np.ndarray
        assert got.values.shape == ()
        assert got.values.dtype == scalar.dtype
        np.testing.assert_array_equal(got.values, scalar)

    @pytest.mark.parametrize(
        "dtype",
        [object, "datetime64[ns]", [("a", "i4"), ("b", "f8")], "U3"],
        ids=["object", "datetime64", "structured", "unicode"],
    )
    def test_arrays_of_other_dtypes_become_objects(self, dtype):
        array = np.zeros(2, dtype=dtype)
        got = roundtrip({"a": array})
        assert got == {"a": ObjectObs(f"ndarray of {array.dtype.name}", "")}

    def test_calls(self):
        calls = start_recording("recompute")
        for index in (2, 0, 2):
            note_call(index)
        stop_recording(calls)
        note_call(5)  # after the recording ended: not in it
        got = roundtrip({"calls": calls})["calls"]
        assert (got.phase, got.layers, got.more) == ("recompute", (2, 0, 2), 0)
        assert got.inputs == (0, 0, 0)  # no array given: nothing to digest
        empty = start_recording("forward")
        stop_recording(empty)
        assert roundtrip(empty) == CallsObs("forward", ())

    def test_a_call_record_is_bounded_and_counts_what_it_dropped(self):
        calls = start_recording("loop")
        for _ in range(MAX_CALLS + 7):
            note_call(1)
        stop_recording(calls)
        assert roundtrip(calls) == CallsObs(
            "loop", (1,) * MAX_CALLS, more=7, inputs=(0,) * MAX_CALLS
        )

    def test_a_call_record_holds_a_digest_of_each_input(self):
        calls = start_recording("recompute")
        note_call(0, np.arange(3.0))
        note_call(1, (torch.arange(3.0, dtype=torch.float64),))  # a module hook's arguments
        note_call(2, np.arange(3.0).astype(np.float32))
        stop_recording(calls)
        got = roundtrip(calls)
        assert got.inputs[0] == got.inputs[1] != 0  # the same values, array or tensor
        assert got.inputs[2] != got.inputs[0]  # another dtype is another input

    def test_a_module_call_notes_the_random_state_it_ran_with(self):
        calls = start_recording("backward")
        torch.manual_seed(3)
        note_call(0, None, True)
        torch.rand(2)  # a draw moves the state on
        note_call(1, None, True)
        torch.manual_seed(3)
        note_call(2, None, True)
        stop_recording(calls)
        got = roundtrip(calls)
        assert got.randoms[0] == got.randoms[2] != got.randoms[1]
        plain = start_recording("forward")
        note_call(0, np.arange(2.0))  # a plain function notes no random state
        stop_recording(plain)
        assert roundtrip(plain).randoms == ()

    def test_the_decoder_refuses_random_digests_of_another_length(self):
        node = {"t": "calls", "phase": "p", "v": [0, 1], "randoms": [5]}
        with pytest.raises(WireError, match="random states"):
            decode_value(node, b"")

    def test_the_decoder_refuses_an_oversized_call_record(self):
        node = {"t": "calls", "phase": "p", "v": [0] * (MAX_CALLS + 1)}
        with pytest.raises(WireError, match="call record of more than"):
            decode_value(node, b"")

    @pytest.mark.parametrize(
        ("value", "type_name", "text"),
        [
            (1 + 2j, "complex", "(1+2j)"),
            (Opaque(), f"{__name__}.Opaque", None),
            ({1, 2}, "set", None),
            (np.float64, "type", None),
        ],
        ids=["complex", "learner-class", "set", "a-type"],
    )
    def test_unknown_objects_keep_their_type_name(self, value, type_name, text):
        got = roundtrip(value)
        assert type(got) is ObjectObs
        assert got.type_name == type_name
        if text is not None:
            assert got.text == text
        assert len(got.text) <= 200

    def test_one_body_holds_many_arrays(self):
        value = {"a": np.arange(3.0), "b": [np.ones((2, 2), dtype=np.int32), np.float32(4)]}
        got = roundtrip(value)
        np.testing.assert_array_equal(got["a"].values, value["a"])
        np.testing.assert_array_equal(got["b"][0].values, value["b"][0])
        assert got["b"][1].scalar
        assert got["b"][1].values.item() == 4.0


class TestTensors:
    def test_leaf_that_requires_grad(self):
        t = torch.arange(6.0).reshape(2, 3).requires_grad_()
        got = roundtrip(t)
        assert type(got) is TensorObs
        assert (got.dtype, got.requires_grad, got.grad_fn, got.is_leaf) == (
            "float32",
            True,
            None,
            True,
        )
        assert type(got.values) is np.ndarray
        assert got.values.dtype == np.float32
        np.testing.assert_array_equal(got.values, np.arange(6.0).reshape(2, 3))

    def test_result_of_an_operation_names_its_grad_fn(self):
        x = torch.ones(3, requires_grad=True)
        got = roundtrip({"y": x * 2})["y"]
        assert (got.requires_grad, got.grad_fn, got.is_leaf) == (True, "MulBackward0", False)
        np.testing.assert_array_equal(got.values, [2.0, 2.0, 2.0])

    def test_tensor_without_grad(self):
        got = roundtrip(torch.tensor([1, -2, 3]))
        assert (got.dtype, got.requires_grad, got.grad_fn, got.is_leaf) == (
            "int64",
            False,
            None,
            True,
        )
        assert got.values.dtype == np.int64

    def test_detached_tensor_has_no_grad_fn(self):
        x = torch.ones(2, requires_grad=True)
        got = roundtrip((x * 3).detach())
        assert (got.requires_grad, got.grad_fn, got.is_leaf) == (False, None, True)

    def test_bfloat16_travels_as_float32(self):
        t = torch.tensor([1.5, -2.0, 0.0078125], dtype=torch.bfloat16)
        got = roundtrip(t)
        assert got.dtype == "bfloat16"
        assert got.values.dtype == np.float32
        np.testing.assert_array_equal(got.values, [1.5, -2.0, 0.0078125])

    @pytest.mark.parametrize(
        ("tensor", "expected"),
        [
            (torch.tensor(2.5), np.array(2.5, dtype=np.float32)),
            (torch.zeros(0, 4), np.zeros((0, 4), dtype=np.float32)),
            (torch.arange(6.0).reshape(2, 3).t(), np.arange(6.0, dtype=np.float32).reshape(2, 3).T),
            (torch.tensor([1 + 2j]).conj(), np.array([1 - 2j], dtype=np.complex64)),
            (torch.tensor([True, False]), np.array([True, False])),
            (torch.tensor([1.0], dtype=torch.float64), np.array([1.0])),
        ],
        ids=["0d", "empty", "transposed", "conj-view", "bool", "float64"],
    )
    def test_values(self, tensor, expected):
        got = roundtrip(tensor)
        assert got.values.dtype == expected.dtype
        assert got.values.shape == expected.shape
        np.testing.assert_array_equal(got.values, expected)


# --- values: hostile inputs to the encoder -------------------------------------------


class LyingArray(np.ndarray):
    def tobytes(self, *args, **kwargs):
        return b"\x00" * 8

    def __array__(self, *args, **kwargs):
        return np.zeros(1)

    def view(self, *args, **kwargs):
        raise RuntimeError("the encoder must not call a learner-defined view")

    def astype(self, *args, **kwargs):
        raise RuntimeError("the encoder must not call a learner-defined astype")

    def __eq__(self, other):
        raise RuntimeError("the encoder must not call a learner-defined __eq__")

    def __len__(self):
        raise RuntimeError("the encoder must not call a learner-defined __len__")


class RaisingTensor(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        raise RuntimeError("the encoder must not run __torch_function__")


class LyingFlagsTensor(torch.Tensor):
    @property
    def requires_grad(self):  # type: ignore[override]
        return True

    @property
    def grad_fn(self):  # type: ignore[override]
        return "AddBackward0"

    @property
    def is_leaf(self):  # type: ignore[override]
        return False


class TestHostileValues:
    def test_ndarray_subclass_is_read_by_its_real_data(self):
        real = np.arange(6.0).reshape(2, 3)
        hostile = real.view(LyingArray)
        got = roundtrip({"a": hostile})["a"]
        assert type(got) is ArrayObs
        assert type(got.values) is np.ndarray
        assert got.values.dtype == np.float64
        np.testing.assert_array_equal(got.values, real)

    def test_a_tensor_subclass_is_refused_without_running_its_code(self):
        hostile = torch.arange(4.0).reshape(2, 2).as_subclass(RaisingTensor)
        with pytest.raises(RuntimeError):
            hostile + 1  # the subclass really is hostile
        got = roundtrip({"t": hostile})["t"]
        assert got == ObjectObs(f"{__name__}.RaisingTensor", got.text)

    def test_a_subclass_lying_about_its_autograd_flags_is_not_a_tensor(self):
        # Forgery: requires_grad, grad_fn and is_leaf as Python properties.
        liar = torch.zeros(2).as_subclass(LyingFlagsTensor)
        assert liar.requires_grad is True and liar.grad_fn == "AddBackward0"
        got = roundtrip({"t": liar})["t"]
        assert type(got) is ObjectObs

    def test_a_parameter_is_a_tensor_with_its_real_flags(self):
        got = roundtrip({"p": torch.nn.Parameter(torch.ones(2))})["p"]
        assert type(got) is TensorObs
        assert (got.requires_grad, got.grad_fn, got.is_leaf) == (True, None, True)

    @pytest.mark.parametrize("kind", ["list", "dict"])
    def test_self_reference_is_refused_by_depth(self, kind):
        value: list | dict
        if kind == "list":
            value = []
            value.append(value)
        else:
            value = {}
            value["me"] = value
        with pytest.raises(WireError, match=f"nested more than {MAX_DEPTH} levels deep"):
            Encoder(MiB).value(value)

    def test_100_deep_nested_list_is_refused(self):
        value: list = []
        for _ in range(100):
            value = [value]
        with pytest.raises(WireError, match=f"nested more than {MAX_DEPTH} levels deep"):
            Encoder(MiB).value(value)

    def test_nesting_up_to_the_limit_round_trips(self):
        value: object = 1
        for _ in range(MAX_DEPTH):
            value = [value]
        assert roundtrip(value) == value
        with pytest.raises(WireError, match="nested"):
            Encoder(MiB).value([value])

    def test_array_over_max_bytes_is_refused_before_copying(self):
        # 8 GiB as seen by nbytes, a single float in memory: copying it would exhaust memory.
        huge = np.broadcast_to(np.zeros(1), (2**30,))
        encoder = Encoder(MiB)
        with pytest.raises(WireError, match="more than 1 MiB"):
            encoder.value({"a": huge})
        assert encoder.chunks == []
        assert encoder.size == 0

    def test_tensor_over_max_bytes_is_refused(self):
        with pytest.raises(WireError, match="more than 1 MiB"):
            Encoder(MiB).value(torch.zeros(MiB // 4 + 1))

    def test_arrays_together_over_max_bytes_are_refused(self):
        half = np.zeros(MiB // 16)  # 512 KiB each
        encoder = Encoder(MiB)
        encoder.value([half, half])  # exactly 1 MiB is allowed
        with pytest.raises(WireError, match="more than 1 MiB"):
            encoder.value(np.zeros(1))

    def test_more_than_max_nodes_is_refused(self):
        Encoder(MiB).value([0] * (MAX_NODES - 1))  # the list itself is one more node
        with pytest.raises(WireError, match=f"more than {MAX_NODES} values"):
            Encoder(MiB).value([0] * MAX_NODES)

    def test_long_strings_are_cut(self):
        got = roundtrip("x" * 200_000)
        assert got == "x" * 100_000


# --- values: the decoder's limits on hand-made nodes --------------------------------


def array_node(**fields):
    node = {"t": "ndarray", "dtype": "float64", "shape": [2], "buf": [0, 16]}
    node.update(fields)
    return node


def tensor_node(**fields):
    node = array_node(
        t="tensor", torch_dtype="float32", requires_grad=False, grad_fn=None, is_leaf=True
    )
    node.update(fields)
    return node


def nested(depth: int) -> dict:
    node: object = 0
    for _ in range(depth):
        node = {"t": "list", "v": [node]}
    return node  # type: ignore[return-value]


BODY = np.arange(2.0).tobytes()


class TestDecoderLimits:
    @pytest.mark.parametrize(
        ("node", "match"),
        [
            ({"t": "pickle", "v": "gASVAAAA"}, "unknown value tag 'pickle'"),
            ({"v": 1}, "unknown value tag None"),
            ([1, 2], "unexpected JSON list"),
            (array_node(dtype="object"), "dtype 'object' is not allowed"),
            (array_node(dtype="O"), "dtype 'O' is not allowed"),
            (array_node(dtype=">f8"), "is not allowed"),
            (array_node(dtype="V16"), "is not allowed"),
            (array_node(dtype=None), "dtype None is not allowed"),
            (array_node(shape=[3]), "buffer length does not match shape and dtype"),
            (array_node(shape=[]), "buffer length does not match shape and dtype"),
            (array_node(dtype="float32"), "buffer length does not match shape and dtype"),
            (array_node(buf=[8, 16]), "buffer reference past the end of the body"),
            (array_node(buf=[0, 17]), "buffer reference past the end of the body"),
            (array_node(shape=[-2]), "bad array shape"),
            (array_node(shape=[2.0]), "bad array shape"),
            (array_node(shape=[1] * 33), "bad array shape"),
            (array_node(shape="2"), "expected a list"),
            (array_node(buf=[-1, 16]), "bad buffer reference"),
            (array_node(buf=[0]), "bad buffer reference"),
            ({"t": "dict", "k": [1, 2], "v": [3]}, "dict with unequal key and value counts"),
            ({"t": "dict", "k": [1], "v": [3, 4]}, "dict with unequal key and value counts"),
            ({"t": "dict", "k": [{"t": "list", "v": []}], "v": [1]}, "not hashable"),
            ({"t": "list", "v": "abc"}, "expected a list"),
            (nested(MAX_DEPTH + 1), f"nested deeper than {MAX_DEPTH} levels"),
            (tensor_node(grad_fn=5), "grad_fn is not a string"),
            (tensor_node(grad_fn=["MulBackward0"]), "grad_fn is not a string"),
            (tensor_node(requires_grad=1), "expected a boolean"),
            (tensor_node(is_leaf=None), "expected a boolean"),
            (tensor_node(torch_dtype=3), "expected a string"),
            ({"t": "calls", "phase": "recompute", "v": [0, True]}, "other than a layer index"),
            ({"t": "calls", "phase": "recompute", "v": [1.0]}, "other than a layer index"),
            ({"t": "calls", "phase": 1, "v": []}, "expected a string"),
            ({"t": "object", "type": None, "repr": ""}, "expected a string"),
            ({"t": "float", "v": "1e999"}, "bad float"),
            ("x" * (MAX_STR + 1), "string too long"),
            ({"t": "list", "v": [0] * MAX_NODES}, f"more than {MAX_NODES} values"),
        ],
        ids=[
            "unknown-tag",
            "no-tag",
            "bare-json-list",
            "dtype-object",
            "dtype-O",
            "dtype-big-endian",
            "dtype-void",
            "dtype-missing",
            "shape-longer-than-buffer",
            "shape-0d-for-two",
            "itemsize-mismatch",
            "buffer-past-end",
            "buffer-length-past-end",
            "negative-shape",
            "float-shape",
            "too-many-dims",
            "shape-not-list",
            "negative-offset",
            "short-buffer-ref",
            "more-keys",
            "more-values",
            "unhashable-key",
            "list-not-list",
            "too-deep",
            "grad-fn-int",
            "grad-fn-list",
            "requires-grad-int",
            "is-leaf-none",
            "torch-dtype-int",
            "calls-bool",
            "calls-float",
            "calls-phase-int",
            "object-type-none",
            "bad-float",
            "long-string",
            "too-many-nodes",
        ],
    )
    def test_rejects(self, node, match):
        with pytest.raises(WireError, match=match):
            decode_value(node, BODY)

    @pytest.mark.parametrize(
        "shape",
        [[True, True], [0, 2**62], [0, 2**64]],
        ids=["bool-dims", "zero-times-huge", "zero-times-over-int64"],
    )
    def test_rejects_hostile_shapes_with_wire_error(self, shape):
        # Every malformed node must end in WireError: the server catches nothing else.
        length = 8 if shape[0] is True else 0  # math.prod agrees: the shape looks consistent
        with pytest.raises(WireError):
            decode_value(array_node(shape=shape, buf=[0, length]), BODY)

    def test_depth_at_the_limit_is_accepted(self):
        expected: object = 0
        for _ in range(MAX_DEPTH):
            expected = [expected]
        assert decode_value(nested(MAX_DEPTH), b"") == expected

    def test_decoded_array_is_a_plain_array_of_the_named_dtype(self):
        body = b"junk" + np.array([1, -2, 3], dtype="<i2").tobytes()
        got = decode_value(array_node(dtype="int16", shape=[3], buf=[4, 6]), body)
        assert type(got) is ArrayObs
        assert type(got.values) is np.ndarray
        assert got.values.dtype == np.int16
        assert got.values.tolist() == [1, -2, 3]

    def test_tensor_node_reports_the_torch_dtype(self):
        got = decode_value(tensor_node(torch_dtype="bfloat16", grad_fn="AddBackward0"), BODY)
        assert got.dtype == "bfloat16"
        assert got.grad_fn == "AddBackward0"
        assert got.values.dtype == np.float64

    def test_nothing_is_unpickled(self):
        pickled = np.array([{"evil": 1}], dtype=object)
        encoder = Encoder(MiB)
        node = encoder.value(pickled)
        assert node == {"t": "object", "type": "ndarray of object", "repr": ""}
        assert encoder.body == b""
        # A frame that claims an object array is refused, whatever its body holds.
        body = pickled.dumps()
        forged = {"t": "ndarray", "dtype": "object", "shape": [1], "buf": [0, len(body)]}
        with pytest.raises(WireError, match="dtype 'object' is not allowed"):
            decode_value(json.loads(json.dumps(forged)), body)


# --- containers a correct solution may build another way ---


def test_dict_subclasses_are_read_as_dicts_through_dicts_own_methods():
    import collections

    class Liar(dict):
        def items(self):
            raise AssertionError("the encoder called a learner's items()")

        def __iter__(self):
            raise AssertionError("the encoder called a learner's __iter__")

    ordered = collections.OrderedDict([(-1, 1.0), (2, 3.0)])
    assert roundtrip(ordered) == {-1: 1.0, 2: 3.0}
    assert roundtrip(collections.defaultdict(list, {1: [2]})) == {1: [2]}
    assert roundtrip(Liar({1: 2.0})) == {1: 2.0}


def test_list_and_tuple_subclasses_are_read_as_what_they_are_built_on():
    import collections

    Pair = collections.namedtuple("Pair", "output saved")
    assert roundtrip(Pair(1.0, {2: 3})) == (1.0, {2: 3})

    class Shouting(list):
        def __iter__(self):
            raise AssertionError("the encoder called a learner's __iter__")

    assert roundtrip(Shouting([1, 2])) == [1, 2]


def test_numpy_integer_keys_are_the_python_ints_they_equal():
    keys = np.unique([3, 1, 3])
    decoded = roundtrip({k: float(k) for k in keys})
    assert decoded == {1: 1.0, 3: 3.0}
    assert all(type(k) is int for k in decoded)
    assert roundtrip({np.bool_(True): 1, np.float64(0.5): 2}) == {True: 1, 0.5: 2}


def test_a_key_the_server_cannot_hash_is_reported_by_its_type():
    key = torch.zeros(1)
    (decoded_key,) = roundtrip({key: 1.0})
    assert isinstance(decoded_key, ObjectObs) and decoded_key.type_name == "torch.Tensor"
