"""kvlog.schemas.proto_text against protoc itself (grpc_tools' bundled compiler, run in-process).

Every text is given to both: where protoc writes a descriptor set, kvlog must give the same
FileDescriptorProto (protoc's ``source_code_info`` is not written without ``--include_source_info``;
custom options' values, which kvlog drops by design, are discarded from protoc's side); where protoc
reports an error, kvlog must raise SchemaError — never anything else.
"""

import contextlib
import os
import pathlib
import string
import tempfile

import grpc_tools
import pytest
from google.protobuf import descriptor_pb2, text_format, timestamp_pb2
from grpc_tools import protoc
from hypothesis import given
from hypothesis import strategies as st

from kvlog.errors import SchemaError
from kvlog.schemas.proto_text import MAX_DEPTH, parse_proto

WELL_KNOWN_INCLUDE = str(pathlib.Path(grpc_tools.__file__).parent / "_proto")


@contextlib.contextmanager
def _quiet_stderr():
    """protoc's C++ writes its diagnostics to file descriptor 2."""
    saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def run_protoc(text, name="schema.proto", deps=None):
    """protoc's FileDescriptorProtos for ``text`` (and its imports, by name), or None when it refuses it."""
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        for path, body in {**(deps or {}), name: text}.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(body.encode("utf-8", "surrogatepass"))
        out = root / "out.pb"
        with _quiet_stderr():
            rc = protoc.main(["protoc", f"-I{root}", f"-I{WELL_KNOWN_INCLUDE}", "--include_imports",
                              f"--descriptor_set_out={out}", name])
        if rc != 0:
            return None
        files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file
    return {f.name: f for f in files}


def parse_with_deps(text, deps=None):
    """kvlog's parse of ``text``, its dependencies parsed by kvlog too (in the order given)."""
    parsed = {}
    for path, body in (deps or {}).items():
        parsed[path] = parse_proto(body, path, dependencies=parsed)
    return parse_proto(text, dependencies=parsed)


def check_like_protoc(text, deps=None):
    """kvlog agrees with protoc on ``text``: the same descriptor, or both refuse it. Returns kvlog's."""
    expected = run_protoc(text, deps=deps)
    try:
        got = parse_with_deps(text, deps)
    except SchemaError as e:
        assert expected is None, f"protoc accepts, kvlog refuses: {e}\n--- text:\n{text}"
        return None
    assert expected is not None, f"protoc refuses, kvlog accepts:\n--- text:\n{text}"
    want = expected["schema.proto"]
    want.DiscardUnknownFields()  # custom options' values: kvlog drops them
    assert text_format.MessageToString(got) == text_format.MessageToString(want), text
    assert got == want
    return got


# -- a corpus of hand-written files ----------------------------------------------------------------------

CORPUS = {
    "proto3-scalars": """
syntax = "proto3";
package scalars.v1;
message AllTypes {
  double d = 1; float f = 2; int64 i64 = 3; uint64 u64 = 4; int32 i32 = 5; fixed64 fx64 = 6;
  fixed32 fx32 = 7; bool b = 8; string s = 9; bytes by = 12; uint32 u32 = 13; sfixed32 sf32 = 15;
  sfixed64 sf64 = 16; sint32 si32 = 17; sint64 si64 = 18;
  repeated int32 many = 19; repeated string names = 20 [packed = false];
}
""",
    "proto2-labels-defaults": r"""
syntax = "proto2";
package p2;
message Defaults {
  required int32 r = 1;
  optional int32 i = 2 [default = -0x7FFFFFFF];
  optional int64 i64 = 3 [default = -9223372036854775808];
  optional uint64 u64 = 4 [default = 0xFFFFFFFFFFFFFFFF];
  optional uint32 u32 = 5 [default = 037];
  optional double d = 6 [default = 1e100];
  optional double dn = 7 [default = -inf];
  optional float fl = 8 [default = 0.1];
  optional float fn = 9 [default = nan];
  optional double dz = 10 [default = -0.0];
  optional bool t = 11 [default = true];
  optional string s = 12 [default = "tab\there \"q\" \x41\101\u00e9\U0001F600" " and more"];
  optional bytes by = 13 [default = "\000\001\377 'x' \\ \n"];
  optional Color c = 14 [default = GREEN];
  optional float big = 15 [default = 1e39];
  optional double whole = 16 [default = 123456789012345678901234567890];
  optional float third = 17 [default = .33333333];
  repeated sint64 rs = 18 [packed = true];
  enum Color { RED = 1; GREEN = 2; }
}
""",
    "proto3-optional": """
syntax = "proto3";
message Opt {
  optional int32 a = 1;
  optional string _b = 2;
  int32 X_a = 3;
  oneof real { string c = 4; int64 d = 5; }
  optional Opt self = 6;
}
""",
    "nested-deep": """
syntax = "proto3";
package deep;
message L1 { message L2 { message L3 { message L4 { int32 x = 1; L1 top = 2; L2 mid = 3; .deep.L1.L2.L3 up = 4; } L4 l4 = 1; }
  L3 l3 = 1; L3.L4 l4 = 2; } L2 l2 = 1; L2.L3.L4 deepest = 2; }
message Other { L1.L2 l2 = 1; deep.L1 l1 = 2; .deep.L1.L2.L3.L4 l4 = 3; }
""",
    "scoping-shadow": """
syntax = "proto2";
package a.b;
message M {
  optional int32 N = 1;
  optional N x = 2;
  optional b.M y = 3;
  optional a.b.M z = 4;
  message Inner { optional M back = 1; optional Inner me = 2; }
}
message N { optional M.Inner i = 1; }
""",
    "maps": """
syntax = "proto3";
package maps;
message Holder {
  map<string, int32> counts = 1;
  map<int64, Holder> children = 2;
  map<bool, Kind> kinds = 3;
  map<uint32, bytes> blobs = 4;
  map<sfixed64, string> my_map_field = 5;
  map < string , .maps.Holder > spaced = 6;
  enum Kind { KIND_UNSPECIFIED = 0; KIND_A = 1; }
}
""",
    "proto2-maps-and-groups": """
syntax = "proto2";
message G {
  map<string, string> labels = 1;
  optional group Result = 2 { required string url = 3; repeated string snippets = 4; }
  repeated group Item = 5 [deprecated = true] { optional int32 id = 6; }
  oneof choice { group Pick = 7 { optional int32 n = 8; } string other = 9; }
}
""",
    "enums": """
syntax = "proto2";
enum Status {
  option allow_alias = true;
  STATUS_UNKNOWN = 0;
  STATUS_STARTED = 1;
  STATUS_RUNNING = 1 [deprecated = true];
  STATUS_NEG = -5;
  reserved 10, 20 to 30, 100 to max;
  reserved "OLD", "GONE";
}
enum Min { MIN = -2147483648; MAX_VALUE = 2147483647; }
""",
    "reserved-and-ranges": """
syntax = "proto2";
message R {
  reserved 2, 15, 9 to 11, 40 to 50;
  reserved "foo", "bar";
  optional int32 a = 1;
  extensions 100 to 199, 1000 to max;
  extensions 60 [verification = UNVERIFIED];
}
message S { reserved 5 to max; optional int32 x = 1; }
""",
    "extensions": """
syntax = "proto2";
package ext;
message Base { extensions 100 to 200; optional int32 id = 1; }
extend Base { optional string name = 100; repeated int32 tags = 101; }
message Scope {
  extend Base { optional Scope back = 150; optional group Grp = 151 { optional int32 v = 1; } }
}
""",
    "services": """
syntax = "proto3";
package svc.v1;
message Req { string q = 1; }
message Resp { repeated string r = 1; }
service Search {
  option deprecated = true;
  rpc Find (Req) returns (Resp);
  rpc Stream (stream Req) returns (stream .svc.v1.Resp) { option deprecated = true; option idempotency_level = NO_SIDE_EFFECTS; }
  rpc Half(svc.v1.Req) returns (stream Resp) {}
  ;
}
service Empty {}
""",
    "file-options": """
syntax = "proto3";
package opts;
option java_package = "com.example.opts";
option java_multiple_files = true;
option java_outer_classname = "OptsProto";
option go_package = "example.com/opts;opts";
option optimize_for = SPEED;
option cc_enable_arenas = true;
option objc_class_prefix = "OPT";
option csharp_namespace = "Example.Opts";
option php_namespace = "Example\\\\Opts";
option deprecated = false;
message M { option deprecated = true; int32 a = 1 [deprecated = true, json_name = "A_custom"]; }
""",
    "aggregate-options": """
syntax = "proto2";
message Decl {
  extensions 4 to 1000 [
    declaration = { number: 4, full_name: ".foo.bar", type: ".foo.Baz", repeated: true },
    declaration = { number: 5 full_name: ".foo.qux" type: "int32" }
  ];
}
""",
    "comments-and-strings": """
// line comment
/* block
   comment */ syntax /* in between */ = "pro" 'to3';   // concatenated
package com . example ;  /* dotted with spaces */
message /* c */ Msg { // comment
  string a = 1 [json_name = "x\\u0041y"]; /* trailing */
}
""",
    "keywords-as-names": """
syntax = "proto3";
package syntax.message;
message message { int32 message = 1; int32 option = 2; int32 enum = 3; int32 syntax = 4; int32 optional = 5;
  int32 repeated = 6; int32 map = 7; int32 oneof = 8; int32 reserved = 9; int32 to = 10; int32 max = 11;
  int32 import = 12; int32 package = 13; int32 service = 14; int32 rpc = 15; int32 returns = 16;
  int32 stream = 17; int32 extensions = 18; int32 extend = 19; int32 group = 20; int32 weak = 21;
  int32 public = 22; int32 true = 23; int32 inf = 24; int32 nan = 25; int32 default = 26;
  int32 json_name = 27; int32 double = 28; string string = 29; bool bool = 30; }
message map { map<string, message> m = 1; }
enum max { to = 0; max_ = 1; }
""",
    "numbers": """
syntax = "proto2";
message Numbers {
  optional int32 hex = 0x10;
  optional int32 oct = 017;
  optional int32 big = 536870911;
  optional int32 below = 18999;
  optional int32 above = 20000;
  optional double d = 1 [default = 0x1F];
  optional double e = 2 [default = 1.5e-3];
  optional float g = 3 [default = 1E+5];
  optional float h = 4 [default = 5.];
  optional int64 neg = 5 [default = - 42];
}
""",
    "oneof-options": """
syntax = "proto2";
import "google/protobuf/descriptor.proto";
package oo;
extend google.protobuf.OneofOptions { optional int32 weight = 50001; }
message M {
  oneof choice { option (weight) = 3; string a = 1; int32 b = 2; }
  oneof other { bytes c = 3; }
}
""",
    "custom-options": """
syntax = "proto2";
import "google/protobuf/descriptor.proto";
package my.opts;
message Rule { optional string expr = 1; optional int32 level = 2; repeated string tags = 3; }
enum Level { LOW = 0; HIGH = 1; }
extend google.protobuf.FileOptions { optional string owner = 50000; }
extend google.protobuf.MessageOptions { optional Rule rule = 50000; optional bool table = 50001; }
extend google.protobuf.FieldOptions { optional Level level = 50000; repeated int32 nums = 50001; optional float f = 50002; }
extend google.protobuf.EnumValueOptions { optional string label = 50000; }
extend google.protobuf.ServiceOptions { optional uint64 quota = 50000; }
extend google.protobuf.MethodOptions { optional int64 cost = 50000; }
extend google.protobuf.EnumOptions { optional sint32 code = 50000; }
option (owner) = "team-a";
message T {
  option (rule) = { expr: "x > 1" level: 2 tags: ["a", "b"] };
  option (.my.opts.table) = true;
  optional int32 a = 1 [(level) = HIGH, (nums) = 1, (nums) = 2, (f) = -inf];
}
message U { option (rule).expr = "y"; option (rule).level = -1; }
enum E { option (code) = -7; E_A = 0 [(label) = "first"]; }
service S { option (quota) = 18446744073709551615; rpc M (T) returns (U) { option (cost) = -9223372036854775808; } }
""",
    "imports-wkt": """
syntax = "proto3";
package wkt;
import "google/protobuf/timestamp.proto";
import public "google/protobuf/duration.proto";
import weak "google/protobuf/empty.proto";
import "google/protobuf/any.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/wrappers.proto";
import "google/protobuf/field_mask.proto";
message Event {
  google.protobuf.Timestamp at = 1;
  .google.protobuf.Duration took = 2;
  google.protobuf.Any payload = 3;
  google.protobuf.Struct attrs = 4;
  google.protobuf.Value v = 5;
  google.protobuf.NullValue n = 6;
  google.protobuf.StringValue maybe = 7;
  google.protobuf.FieldMask mask = 8;
  map<string, google.protobuf.ListValue> lists = 9;
  google.protobuf.Empty nothing = 10;
}
""",
    "debezium-envelope": """
syntax = "proto3";
package dbserver1.inventory.customers;
import "google/protobuf/wrappers.proto";
message Value {
  int32 id = 1;
  string first_name = 2;
  string last_name = 3;
  string email = 4;
  google.protobuf.Int64Value updated_at = 5;
}
message Source {
  string version = 1; string connector = 2; string name = 3; int64 ts_ms = 4;
  optional string snapshot = 5; string db = 6; optional string sequence = 7;
  string table = 8; int64 server_id = 9; optional string gtid = 10; string file = 11;
  int64 pos = 12; int32 row = 13; optional int64 thread = 14; optional string query = 15;
}
message Transaction { string id = 1; int64 total_order = 2; int64 data_collection_order = 3; }
message Envelope {
  Value before = 1;
  Value after = 2;
  Source source = 3;
  string op = 4;
  optional int64 ts_ms = 5;
  Transaction transaction = 6;
}
""",
    "ecommerce-order": """
syntax = "proto3";
package shop.orders.v2;
option java_package = "com.shop.orders.v2";
option java_multiple_files = true;
import "google/protobuf/timestamp.proto";
import "google/protobuf/struct.proto";

// An order as the checkout service emits it.
message Order {
  string order_id = 1;
  Customer customer = 2;
  repeated LineItem items = 3;
  map<string, string> attributes = 4;
  Status status = 5;
  google.protobuf.Timestamp created_at = 6;
  oneof payment {
    Card card = 7;
    BankTransfer transfer = 8;
    string voucher_code = 9;
  }
  Address shipping = 10;
  optional Address billing = 11;
  google.protobuf.Struct metadata = 12;
  map<int32, Shipment> shipments = 13;

  message Customer { string id = 1; string email = 2; bool vip = 3; }
  message LineItem {
    string sku = 1; uint32 quantity = 2; Money unit_price = 3;
    repeated Discount discounts = 4;
    message Discount { string code = 1; Money amount = 2; }
  }
  message Card { string last4 = 1; string network = 2; int32 exp_month = 3; int32 exp_year = 4; }
  message BankTransfer { string iban = 1; }
  message Shipment { string carrier = 1; repeated string tracking = 2; Status status = 3; }
  enum Status {
    STATUS_UNSPECIFIED = 0;
    STATUS_PLACED = 1;
    STATUS_PAID = 2;
    STATUS_SHIPPED = 3;
    STATUS_CANCELLED = 4;
    reserved 5 to 9;
    reserved "STATUS_LOST";
  }
  reserved 14, 15;
  reserved "legacy_total";
}
message Money { string currency_code = 1; int64 units = 2; int32 nanos = 3; }
message Address { string line1 = 1; optional string line2 = 2; string city = 3; string postal_code = 4; string country = 5; }
service Orders {
  rpc Get (GetRequest) returns (Order);
  rpc Watch (GetRequest) returns (stream Order);
}
message GetRequest { string order_id = 1; }
""",
    "iot-telemetry-proto2": """
syntax = "proto2";
package iot;
option optimize_for = CODE_SIZE;
message Reading {
  required string device_id = 1;
  required int64 ts = 2;
  optional double temperature = 3 [default = -273.15];
  optional float humidity = 4;
  repeated Sample samples = 5;
  optional Unit unit = 6 [default = CELSIUS];
  extensions 1000 to 1999;
  message Sample { optional sint32 delta = 1; optional fixed32 seq = 2; }
  enum Unit { CELSIUS = 1; FAHRENHEIT = 2; KELVIN = 3; }
}
extend Reading { optional bytes raw = 1000; }
""",
    "json-names": """
syntax = "proto3";
message J {
  int32 foo_bar = 1;
  int32 foo__baz = 2;
  int32 _leading = 3;
  int32 trailing_ = 4;
  int32 x1_y2 = 5;
  int32 CAPS_NAME = 6;
  int32 custom = 7 [json_name = "otherName"];
  int32 a_1 = 8;
}
""",
    "map-entry-names": """
syntax = "proto3";
message K {
  map<string, int32> a_b_c = 1; map<string, int32> _x = 2; map<string, int32> y_ = 3;
  map<string, int32> Zz = 4; map<string, int32> n1_2 = 5;
}
""",
    "enum-prefix-stripping": """
syntax = "proto3";
enum FooBar { FOO_BAR_UNSPECIFIED = 0; FOO_BAR_BAZ = 1; FOOBAR_QUX = 2; BAZZ = 3; FOO_BAR = 4; }
""",
    "empty-statements": """
syntax = "proto3";;
package e;;
import "google/protobuf/empty.proto";;
message A { ; int32 a = 1;; ; }
enum B { ; B_ZERO = 0; ; }
service C { ; rpc D (google.protobuf.Empty) returns (A); ; }
;
""",
    "no-syntax": """
message Legacy { optional int32 a = 1; required string b = 2; }
""",
    "proto3-extension-options": """
syntax = "proto3";
import "google/protobuf/descriptor.proto";
package po;
extend google.protobuf.FieldOptions { optional string sensitive = 51234; string plain = 51235; repeated int32 r = 51236; }
message M { string s = 1 [(sensitive) = "pii", (plain) = "x"]; }
""",
    "field-options-standard": """
syntax = "proto2";
message F {
  optional string s = 1 [ctype = CORD, deprecated = true, debug_redact = true];
  optional int64 j = 2 [jstype = JS_STRING];
  optional F lazy_msg = 3 [lazy = true, unverified_lazy = false];
  repeated int32 p = 4 [packed = true, retention = RETENTION_SOURCE];
  optional int32 t = 5 [targets = TARGET_TYPE_FIELD, targets = TARGET_TYPE_MESSAGE];
  optional int32 w = 6 [weak = false];
}
""",
    "message-options": """
syntax = "proto2";
message MS { option message_set_wire_format = true; extensions 4 to max; }
message Ext { extend MS { optional Ext ext = 12345678; } }
message NoAcc { option no_standard_descriptor_accessor = true; optional int32 a = 1; }
message Legacy { option deprecated_legacy_json_field_conflicts = true; optional int32 a_b = 1; optional int32 aB = 2; }
""",
    "editions-2023": """
edition = "2023";
package ed;
option features.field_presence = EXPLICIT;
message M {
  int32 a = 1;
  repeated int32 b = 2;
  M c = 3 [features.message_encoding = DELIMITED];
  int32 d = 4 [features.field_presence = LEGACY_REQUIRED];
  int32 e = 5 [features.field_presence = IMPLICIT];
  string f = 6 [default = "x"];
  repeated int32 g = 7 [features.repeated_field_encoding = EXPANDED];
  reserved foo, bar;
  reserved 10 to 20;
  enum E { option features.enum_type = CLOSED; X = 1; Y = 2; }
  E en = 8 [default = Y];
  map<string, int32> m = 9;
  oneof o { int32 p = 21; string q = 22; }
}
enum Open { OPEN_ZERO = 0; OPEN_ONE = 1; }
""",
    "float-defaults": """
syntax = "proto2";
message FD {
  optional float a = 1 [default = 3.14159265358979];
  optional float b = 2 [default = 16777217];
  optional double c = 3 [default = 0.30000000000000004];
  optional double d = 4 [default = 1e-320];
  optional float e = 5 [default = 1e-50];
  optional double f = 6 [default = 1.7976931348623157e308];
  optional double g = 7 [default = 18446744073709551616];
  optional float h = 8 [default = -3.4028235e38];
  optional float i = 9 [default = inf];
  optional double j = 10 [default = 100000000000000000000];
}
""",
    "string-escapes": r"""
syntax = "proto2";
message SE {
  optional string a = 1 [default = "\a\b\f\n\r\t\v\\\?\'\""];
  optional bytes b = 2 [default = "\a\b\f\n\r\t\v\\\?\'\""];
  optional string c = 3 [default = "\x4\x41\x414"];
  optional bytes d = 4 [default = "\7\77\777\1234"];
  optional string e = 5 [default = "\u00e9\u4e2d\U0001f600\ud83d\ude00"];
  optional bytes f = 6 [default = "\u00e9\U0010FFFF"];
  optional string g = 7 [default = 'single "quoted"'];
  optional bytes h = 8 [default = "\U00110000"];
  optional string i = 9 [default = "caf\xc3\xa9"];
  optional bytes j = 10 [default = "\ud800"];
}
""",
    "oneof-in-nested-and-synthetic-names": """
syntax = "proto3";
message O {
  oneof _a { int32 b = 1; }
  optional int32 a = 2;
  optional int32 c = 3;
  oneof X_c { int32 d = 4; }
  int32 _c = 5;
  message Inner { oneof inner { string s = 1; O o = 2; } optional bool flag = 3; }
}
""",
    "strings-not-utf8": r"""
syntax = "proto2";
option java_package = "pkg\xc3";
message U {
  optional string s = 1 [default = "\xff\ud800", json_name = "j\xfe"];
  reserved "\xfd", "ok";
}
""",
    "service-stream-types": """
syntax = "proto2";
package st;
message stream { optional int32 a = 1; }
service S { rpc A (stream st.stream) returns (stream .st.stream); rpc B (st.stream) returns (st.stream); }
""",
}

#: (main text, {import path: text}) — files with dependencies of their own
WITH_DEPS = {
    "user-dependency": ("""
syntax = "proto3";
package app;
import "common/money.proto";
import "common/ids.proto";
message Invoice { common.Money total = 1; common.ids.Id id = 2; .common.Money tax = 3; common.Currency cur = 4; }
""", {
        "common/money.proto": """
syntax = "proto3";
package common;
message Money { string currency = 1; int64 units = 2; }
enum Currency { CURRENCY_UNSPECIFIED = 0; EUR = 1; }
""",
        "common/ids.proto": 'syntax = "proto3"; package common.ids; message Id { string value = 1; }',
    }),
    "public-import-chain": ("""
syntax = "proto2";
import "b.proto";
message Uses { optional A a = 1; optional B b = 2; }
""", {
        "a.proto": 'syntax = "proto2"; message A { optional int32 x = 1; extensions 100 to 200; }',
        "b.proto": 'syntax = "proto2"; import public "a.proto"; message B { optional A a = 1; }',
    }),
    "extend-imported": ("""
syntax = "proto2";
import "base.proto";
package more;
extend base.Base { optional string note = 150; }
""", {"base.proto": 'syntax = "proto2"; package base; message Base { extensions 100 to 200; }'}),
    "closed-enum-from-proto2-in-proto2": ("""
syntax = "proto2";
import "e.proto";
message M { optional E e = 1 [default = TWO]; map<string, E> m = 2; }
""", {"e.proto": 'syntax = "proto2"; enum E { ZERO = 0; TWO = 2; }'}),
    "custom-option-from-dependency": ("""
syntax = "proto3";
import "opts.proto";
message M { option (o.tag) = "x"; string s = 1 [(o.field_tag) = 4]; }
""", {"opts.proto": """
syntax = "proto2";
package o;
import "google/protobuf/descriptor.proto";
extend google.protobuf.MessageOptions { optional string tag = 60000; }
extend google.protobuf.FieldOptions { optional int32 field_tag = 60000; }
"""}),
}

#: texts protoc refuses (each must raise SchemaError naming a place)
ERRORS = {
    "field-number-zero": 'syntax = "proto3"; message M { int32 a = 0; }',
    "field-number-too-big": 'syntax = "proto3"; message M { int32 a = 536870912; }',
    "field-number-reserved-band": 'syntax = "proto3"; message M { int32 a = 19000; }',
    "field-number-reserved-band-end": 'syntax = "proto3"; message M { int32 a = 19999; }',
    "field-number-overflow": 'syntax = "proto3"; message M { int32 a = 4294967296; }',
    "duplicate-number": 'syntax = "proto3"; message M { int32 a = 1; int32 b = 1; }',
    "duplicate-name": 'syntax = "proto3"; message M { int32 a = 1; string a = 2; }',
    "duplicate-message": 'syntax = "proto3"; message M {} message M {}',
    "unknown-type": 'syntax = "proto3"; message M { Missing a = 1; }',
    "partly-resolved-type": 'syntax = "proto3"; package a; message M { message a {} a.M x = 1; }',
    "not-a-type": 'syntax = "proto3"; package p; message M { p x = 1; }',
    "missing-semicolon": 'syntax = "proto3"; message M { int32 a = 1 }',
    "missing-brace": 'syntax = "proto3"; message M { int32 a = 1;',
    "bad-syntax": 'syntax = "proto4";',
    "syntax-not-first": 'package a; syntax = "proto3";',
    "proto3-required": 'syntax = "proto3"; message M { required int32 a = 1; }',
    "proto3-default": 'syntax = "proto3"; message M { int32 a = 1 [default = 1]; }',
    "proto3-group": 'syntax = "proto3"; message M { group G = 1 {} }',
    "proto3-enum-nonzero": 'syntax = "proto3"; enum E { A = 1; }',
    "proto3-closed-enum": ('syntax = "proto3"; import "e.proto"; message M { E e = 1; }',
                           {"e.proto": 'syntax = "proto2"; enum E { A = 0; }'}),
    "proto2-no-label": 'syntax = "proto2"; message M { int32 a = 1; }',
    "reserved-number-used": 'syntax = "proto3"; message M { reserved 1 to 3; int32 a = 2; }',
    "reserved-name-used": 'syntax = "proto3"; message M { reserved "a"; int32 a = 2; }',
    "reserved-overlap": 'syntax = "proto3"; message M { reserved 1 to 5, 5; }',
    "map-in-oneof": 'syntax = "proto3"; message M { oneof o { map<string, int32> m = 1; } }',
    "map-float-key": 'syntax = "proto3"; message M { map<double, int32> m = 1; }',
    "map-message-key": 'syntax = "proto3"; message M { map<M, int32> m = 1; }',
    "map-label": 'syntax = "proto2"; message M { repeated map<string, int32> m = 1; }',
    "oneof-label": 'syntax = "proto2"; message M { oneof o { optional int32 a = 1; } }',
    "empty-enum": 'syntax = "proto2"; enum E {}',
    "enum-alias-without-option": 'syntax = "proto2"; enum E { A = 0; B = 0; }',
    "enum-alias-option-no-alias": 'syntax = "proto2"; enum E { option allow_alias = true; A = 0; B = 1; }',
    "enum-value-sibling-clash": 'syntax = "proto2"; enum E { A = 0; } enum F { A = 1; }',
    "enum-default-unknown": 'syntax = "proto2"; enum E { A = 0; } message M { optional E e = 1 [default = B]; }',
    "message-default": 'syntax = "proto2"; message M { optional M m = 1 [default = 1]; }',
    "bad-int-default": 'syntax = "proto2"; message M { optional int32 a = 1 [default = 2147483648]; }',
    "negative-unsigned-default": 'syntax = "proto2"; message M { optional uint32 a = 1 [default = -1]; }',
    "bool-default": 'syntax = "proto2"; message M { optional bool a = 1 [default = 1]; }',
    "unknown-option": 'syntax = "proto3"; option no_such_option = true;',
    "option-wrong-type": 'syntax = "proto3"; option java_multiple_files = "yes";',
    "option-twice": 'syntax = "proto3"; option java_package = "a"; option java_package = "b";',
    "enum-option-bad-value": 'syntax = "proto3"; option optimize_for = FAST;',
    "custom-option-unknown": 'syntax = "proto3"; option (nope) = 1;',
    "custom-option-wrong-type": ('syntax = "proto2"; import "google/protobuf/descriptor.proto"; '
                                 'extend google.protobuf.FileOptions { optional int32 n = 50000; } '
                                 'option (n) = "str";'),
    "extension-out-of-range": 'syntax = "proto2"; message M { extensions 10 to 20; } extend M { optional int32 x = 5; }',
    "extension-proto3": 'syntax = "proto3"; message M {} extend M { int32 x = 5; }',
    "extension-json-name": ('syntax = "proto2"; message M { extensions 1 to 9; } '
                            'extend M { optional int32 x = 5 [json_name = "y"]; }'),
    "json-conflict-proto3": 'syntax = "proto3"; message M { int32 a_b = 1; int32 aB = 2; }',
    "group-lowercase": 'syntax = "proto2"; message M { optional group g = 1 {} }',
    "unterminated-string": 'syntax = "proto3";\nmessage M { string a = 1 [json_name = "abc];\n}',
    "newline-in-string": 'syntax = "proto3";\nmessage M { string a = 1 [json_name = "ab\nc"]; }',
    "bad-escape": 'syntax = "proto3"; message M { string a = 1 [json_name = "\\q"]; }',
    "unterminated-comment": 'syntax = "proto3"; /* no end',
    "nested-comment": 'syntax = "proto3"; /* a /* b */',
    "non-ascii": 'syntax = "proto3"; message Mé {}',
    "control-char": 'syntax = "proto3"; message M {\x01}',
    "nul": 'syntax = "proto3"; message M {}\x00',
    "number-then-letter": 'syntax = "proto3"; message M { int32 a = 1x; }',
    "bad-octal": 'syntax = "proto3"; message M { int32 a = 09; }',
    "bad-hex": 'syntax = "proto3"; message M { int32 a = 0x; }',
    "float-field-number": 'syntax = "proto3"; message M { int32 a = 1.5; }',
    "import-missing": 'syntax = "proto3"; import "nowhere.proto";',
    "import-twice": 'syntax = "proto3"; import "google/protobuf/empty.proto"; import "google/protobuf/empty.proto";',
    "two-packages": 'syntax = "proto3"; package a; package b;',
    "not-imported": ('syntax = "proto3"; import "b.proto"; message M { A a = 1; }',
                     {"a.proto": 'syntax = "proto3"; message A {}',
                      "b.proto": 'syntax = "proto3"; import "a.proto";'}),
    "rpc-enum-input": 'syntax = "proto3"; enum E { A = 0; } message M {} service S { rpc X (E) returns (M); }',
    "packed-on-string": 'syntax = "proto2"; message M { repeated string s = 1 [packed = true]; }',
    "features-outside-editions": 'syntax = "proto3"; option features.field_presence = IMPLICIT;',
    "editions-optional": 'edition = "2023"; message M { optional int32 a = 1; }',
    "unknown-edition": 'edition = "2042";',
    "empty-oneof": 'syntax = "proto3"; message M { oneof o {} }',
    "map-entry-clash": 'syntax = "proto3"; message M { map<string, int32> a = 1; message AEntry {} }',
    "synthetic-oneof-clash": 'syntax = "proto3"; message M { optional int32 a = 1; message _a {} }',
    "aggregate-unterminated": 'syntax = "proto2"; message M { extensions 1 to 5 [declaration = { number: 1 ',
    "extension-range-overlaps-field": 'syntax = "proto2"; message M { optional int32 a = 3; extensions 1 to 5; }',
    "top-level-junk": 'syntax = "proto3"; int32 a = 1;',
}


def _case(value):
    return value if isinstance(value, tuple) else (value, None)


def test_corpus_is_large():
    assert len(CORPUS) + len(WITH_DEPS) >= 40


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_like_protoc(name):
    assert check_like_protoc(CORPUS[name]) is not None, "protoc refuses a corpus file"


@pytest.mark.parametrize("name", sorted(WITH_DEPS))
def test_files_with_dependencies_like_protoc(name):
    text, deps = WITH_DEPS[name]
    assert check_like_protoc(text, deps) is not None, "protoc refuses a corpus file"


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_like_protoc(name):
    text, deps = _case(ERRORS[name])
    assert run_protoc(text, deps=deps) is None, "protoc accepts an ERRORS case"
    with pytest.raises(SchemaError, match=r"^schema\.proto:\d+:\d+: .+ \(at .+\)$"):
        parse_with_deps(text, deps)


def test_error_names_place_and_token():
    with pytest.raises(SchemaError) as info:
        parse_proto('syntax = "proto3";\nmessage M {\n  int32 a = 1;\n  Missing b = 2;\n}\n', "orders.proto")
    assert str(info.value) == "orders.proto:4:3: \"Missing\" is not defined. (at 'Missing')"
    with pytest.raises(SchemaError, match=r"^x\.proto:2:25: Expected \";\"\. \(at '}'\)$"):
        parse_proto('syntax = "proto3";\nmessage M { int32 a = 1 }', "x.proto")
    with pytest.raises(SchemaError, match=r"end of input"):
        parse_proto('syntax = "proto3"; message M {', "x.proto")


def test_custom_option_values_are_dropped_but_options_are_present():
    text = CORPUS["custom-options"]
    got = parse_proto(text, dependencies=None)
    t = next(m for m in got.message_type if m.name == "T")
    assert t.HasField("options") and t.options.ListFields() == []
    assert got.options.ListFields() == []


def test_well_known_types_need_not_be_given():
    got = parse_proto('syntax = "proto3"; import "google/protobuf/timestamp.proto"; '
                      "message M { google.protobuf.Timestamp t = 1; }")
    assert got.message_type[0].field[0].type_name == ".google.protobuf.Timestamp"
    # a given file of the same path is used instead
    mine = descriptor_pb2.FileDescriptorProto()
    timestamp_pb2.DESCRIPTOR.CopyToProto(mine)
    mine.message_type[0].name = "Stamp"
    with pytest.raises(SchemaError, match="not defined"):
        parse_proto('syntax = "proto3"; import "google/protobuf/timestamp.proto"; '
                    "message M { google.protobuf.Timestamp t = 1; }",
                    dependencies={"google/protobuf/timestamp.proto": mine})


@pytest.mark.parametrize("inner", ["", "int32 a = 1;", "map<string, int32> m = 1;", "oneof o { int32 a = 1; }",
                                   "enum E { A = 0; }"])
def test_nesting_like_protoc(inner):
    for depth in (MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1):
        check_like_protoc('syntax = "proto3";' + "message M {" * depth + inner + "}" * depth)
    for depth in (MAX_DEPTH - 1, MAX_DEPTH):
        check_like_protoc('syntax = "proto2";' + "message M {" * depth + "optional group G = 1 {}" + "}" * depth)


def test_nesting_is_bounded():
    with pytest.raises(SchemaError, match="recursion limit"):
        parse_proto('syntax = "proto3";' + "message M {" * 100_000 + "}" * 100_000)
    # protoc itself aborts on such a value: kvlog's limit is checked without it
    option = ('syntax = "proto2"; import "google/protobuf/descriptor.proto"; message R { optional R r = 1; } '
              "extend google.protobuf.FileOptions { optional R o = 50000; } option (o) = ")
    assert parse_proto(option + "{ r " * 99 + "{}" + "}" * 99 + ";").options.ListFields() == []
    with pytest.raises(SchemaError, match="Aggregate value nested deeper"):
        parse_proto(option + "{ r " * 100_000 + "{}" + "}" * 100_000 + ";")
    with pytest.raises(SchemaError):
        parse_proto('syntax = "proto3"; message M {' + "oneof o {" * 5000)


def test_edition_2024_is_refused():
    text = 'edition = "2024"; package ed24; message M { int32 a = 1; }'
    assert run_protoc(text) is not None
    with pytest.raises(SchemaError, match="Edition 2024 is not supported"):
        parse_proto(text)


def test_lone_surrogate_is_a_schema_error():
    with pytest.raises(SchemaError, match="Unicode"):
        parse_proto('syntax = "proto3"; message M { string s = 1 [json_name = "\ud800"]; }')


# -- random valid files ----------------------------------------------------------------------------------

SCALARS = ["double", "float", "int64", "uint64", "int32", "fixed64", "fixed32", "bool", "string", "bytes",
           "uint32", "sfixed32", "sfixed64", "sint32", "sint64"]
MAP_KEYS = ["int64", "uint64", "int32", "fixed64", "fixed32", "bool", "string", "uint32", "sfixed32", "sfixed64",
            "sint32", "sint64"]
FIELD_NAMES = ["a", "b", "id", "foo_bar", "x1", "message", "option", "value", "key", "_under", "camelCase",
               "snake_case_name", "enum", "to", "max", "stream", "data", "items", "name"]
TYPE_NAMES = ["A", "B", "Msg", "Inner", "Data", "Item", "Outer", "Node", "map", "Entry"]
ENUM_NAMES = ["Kind", "Color", "State", "E"]
WELL_KNOWN = {"google/protobuf/timestamp.proto": ["google.protobuf.Timestamp"],
              "google/protobuf/wrappers.proto": ["google.protobuf.Int32Value", "google.protobuf.StringValue"],
              "google/protobuf/struct.proto": ["google.protobuf.Struct", "google.protobuf.NullValue"]}
SPACES = [" ", "\n", "\n  ", " /* c */ ", " // c\n", "\t"]

_INT_DEFAULTS = {
    "int32": (-(2**31), 2**31 - 1), "sint32": (-(2**31), 2**31 - 1), "sfixed32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1), "sint64": (-(2**63), 2**63 - 1), "sfixed64": (-(2**63), 2**63 - 1),
    "uint32": (0, 2**32 - 1), "fixed32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1), "fixed64": (0, 2**64 - 1),
}


def _quote(data):
    """A .proto string literal of ``data`` (bytes), with a mix of escapes."""
    out = []
    for b in data:
        c = chr(b)
        if c in string.ascii_letters + string.digits + " _-.":
            out.append(c)
        elif b % 3 == 0:
            out.append(f"\\x{b:02x}")
        else:
            out.append(f"\\{b:03o}")
    return '"' + "".join(out) + '"'


@st.composite
def default_literal(draw, type_name, enum_values):
    if type_name in _INT_DEFAULTS:
        low, high = _INT_DEFAULTS[type_name]
        value = draw(st.integers(low, high))
        return hex(value) if value > 0 and draw(st.booleans()) else str(value)
    if type_name in ("float", "double"):
        value = draw(st.floats(allow_nan=True, allow_infinity=True))
        text = repr(value)
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(text, text)
    if type_name == "bool":
        return draw(st.sampled_from(["true", "false"]))
    if type_name == "string":
        return _quote(draw(st.text(alphabet=string.printable, max_size=8)).encode())
    if type_name == "bytes":
        return _quote(draw(st.binary(max_size=8)))
    return draw(st.sampled_from(enum_values))


class _Gen:
    """Draws one random .proto file: declarations first, then fields that refer to them."""

    def __init__(self, draw):
        self.draw = draw
        self.syntax = draw(st.sampled_from(["proto2", "proto3"]))
        self.package = draw(st.sampled_from(["", "pkg", "com.example.shop", "a.b"]))
        self.imports = draw(st.sets(st.sampled_from(sorted(WELL_KNOWN)), max_size=2))
        self.types = {}  # full name → ("message" | "enum", enum value names)
        self.extendable = []  # full names of messages with extension ranges 1000 to 1999

    def pick(self, strategy):
        return self.draw(strategy)

    def file(self):
        lines = [f'syntax = "{self.syntax}";'] if self.syntax == "proto3" or self.pick(st.booleans()) else []
        if self.package:
            lines.append(f"package {self.package};")
        lines += [f'import "{path}";' for path in sorted(self.imports)]
        for path in self.imports:
            for name in WELL_KNOWN[path]:
                self.types[name] = ("enum", ["NULL_VALUE"]) if name.endswith("NullValue") else ("message", [])
        tree = self.declare(self.package, self.pick(st.integers(1, 3)), depth=0)
        body = [self.render(node) for node in tree]
        if self.extendable and self.pick(st.booleans()):
            target = self.pick(st.sampled_from(self.extendable))
            label = "optional " if self.syntax == "proto2" else ""
            number = self.pick(st.integers(1000, 1999))
            body.append(f"extend .{target} {{ {label}int32 ext_{len(body)} = {number}; }}")
        messages = [n for n, (k, _) in self.types.items() if k == "message"]
        if messages and self.pick(st.booleans()):
            a, b = self.pick(st.sampled_from(messages)), self.pick(st.sampled_from(messages))
            stream = self.pick(st.sampled_from(["", "stream "]))
            body.append(f"service Svc {{ rpc Call ({stream}.{a}) returns ({self.ref(b, self.package)}); }}")
        sep = self.pick(st.sampled_from(SPACES))
        return sep.join(lines + body) + "\n"

    def declare(self, scope, count, depth):
        """Nested declarations of a scope: [(kind, name, full name, children)], names unique in the scope."""
        names = self.pick(st.lists(st.sampled_from(TYPE_NAMES + ENUM_NAMES), min_size=count, max_size=count,
                                   unique=True))
        nodes = []
        for name in names:
            full = f"{scope}.{name}" if scope else name
            if name in ENUM_NAMES:
                prefix = name.upper()
                values = [f"{prefix}_V{i}" for i in range(self.pick(st.integers(1, 4)))]
                self.types[full] = ("enum", values)
                nodes.append(("enum", name, full, values))
            else:
                self.types[full] = ("message", [])
                children = self.declare(full, self.pick(st.integers(0, 2)), depth + 1) if depth < 3 else []
                nodes.append(("message", name, full, children))
        return nodes

    def ref(self, full, scope):
        """A name for type ``full`` as written in ``scope``: fully qualified, or relative to the package."""
        forms = ["." + full]
        if self.package and full.startswith(self.package + "."):
            forms.append(full[len(self.package) + 1:])
        elif not self.package:
            forms.append(full)
        parent = full.rpartition(".")[0]
        if scope == parent or scope.startswith(parent + "."):
            forms.append(full.rpartition(".")[2])
        return self.pick(st.sampled_from(forms))

    def render(self, node):
        kind, name, full, rest = node
        if kind == "enum":
            numbers = self.pick(st.lists(st.integers(-5, 50), min_size=len(rest), max_size=len(rest), unique=True))
            if self.syntax == "proto3":
                numbers[0] = 0
                numbers = [numbers[0]] + [n for n in numbers[1:] if n != 0] + [99] * (numbers[1:].count(0))
            values = " ".join(f"{v} = {n};" for v, n in zip(rest, numbers))
            return f"enum {name} {{ {values} }}"
        return self.message(name, full, rest)

    def message(self, name, full, children):
        used_names = {n for _, n, _, _ in children}
        for kind, _, _, values in children:
            if kind == "enum":
                used_names |= set(values)
        field_names = [n for n in self.pick(st.lists(st.sampled_from(FIELD_NAMES), max_size=6, unique=True))
                       if n not in used_names]
        numbers = self.pick(st.lists(st.integers(1, 40) | st.integers(1, 536870911).filter(
            lambda n: not 19000 <= n <= 19999), min_size=len(field_names), max_size=len(field_names), unique=True))
        parts = [self.render(child) for child in children]
        oneof = self.pick(st.integers(0, len(field_names)))
        oneof_fields = []
        for i, (fname, number) in enumerate(zip(field_names, numbers)):
            in_oneof = i >= oneof and len(field_names) - oneof >= 1 and self.pick(st.booleans())
            text = self.field(fname, number, full, in_oneof)
            (oneof_fields if in_oneof else parts).append(text)
        if oneof_fields:
            parts.append(f"oneof choice {{ {' '.join(oneof_fields)} }}")
        free = [n for n in range(41, 60) if n not in numbers]
        if self.pick(st.booleans()):
            parts.append(f"reserved {free[0]}, {free[1]} to {free[2]};")
        if self.pick(st.booleans()):
            parts.append('reserved "gone", "old_name";')
        if self.syntax == "proto2" and self.pick(st.booleans()) and not any(1000 <= n <= 1999 for n in numbers):
            parts.append("extensions 1000 to 1999;")
            self.extendable.append(full)
        if self.pick(st.booleans()):
            parts.append("option deprecated = true;")
        sep = self.pick(st.sampled_from(SPACES))
        return f"message {name} {{{sep}{sep.join(parts)}{sep}}}"

    def field(self, name, number, scope, in_oneof):
        candidates = sorted(self.types)
        shape = self.pick(st.sampled_from(["scalar", "scalar", "named", "map"] if not in_oneof
                                          else ["scalar", "named"]))
        options = []
        if shape == "map":
            key = self.pick(st.sampled_from(MAP_KEYS))
            value = self.pick(st.sampled_from(SCALARS + candidates))
            value = value if value in SCALARS else self.ref(value, scope)
            return f"map<{key}, {value}> {name} = {number};"
        type_name = self.pick(st.sampled_from(SCALARS)) if shape == "scalar" else self.pick(
            st.sampled_from(candidates))
        written = type_name if shape == "scalar" else self.ref(type_name, scope)
        if in_oneof:
            label = ""
        elif self.syntax == "proto2":
            label = self.pick(st.sampled_from(["optional ", "required ", "repeated "]))
        else:
            label = self.pick(st.sampled_from(["", "optional ", "repeated "]))
        kind, values = self.types.get(type_name, ("scalar", []))
        if self.syntax == "proto2" and label != "repeated " and kind != "message" and self.pick(st.booleans()):
            options.append("default = " + self.pick(default_literal(type_name, values)))
        if label == "repeated " and type_name in SCALARS and type_name not in ("string", "bytes") and (
                self.pick(st.booleans())):
            options.append(f"packed = {self.pick(st.sampled_from(['true', 'false']))}")
        if self.pick(st.integers(0, 4)) == 0:
            options.append("deprecated = true")
        if self.pick(st.integers(0, 4)) == 0:
            options.append(f'json_name = "j_{name}"')
        suffix = f" [{', '.join(options)}]" if options else ""
        return f"{label}{written} {name} = {number}{suffix};"


@st.composite
def proto_files(draw):
    return _Gen(draw).file()


@given(proto_files())
def test_random_files_like_protoc(text):
    check_like_protoc(text)


# -- damaged files ---------------------------------------------------------------------------------------

SEEDS = [CORPUS["proto2-labels-defaults"], CORPUS["ecommerce-order"], CORPUS["maps"], CORPUS["enums"],
         CORPUS["proto2-maps-and-groups"], CORPUS["services"], CORPUS["aggregate-options"],
         CORPUS["reserved-and-ranges"], CORPUS["string-escapes"], CORPUS["custom-options"]]
INSERTS = list("{}[]()<>;=,.\"'/\\*-+_ \n0123456789azAZx\x01é") + [
    "optional ", "required ", "repeated ", "message ", "enum ", "map<", "oneof ", "group ", "max", " to ",
    "reserved ", "extensions ", "option ", "0x", "\\x", "\\u", "/*", "//", "stream ", "-", "1e5", "inf",
    "default = ", "json_name", "syntax", ".", "..", "\"\"", "19000", "536870912", "2147483648"]


@pytest.mark.parametrize("seed", [CORPUS["proto2-labels-defaults"], CORPUS["maps"], CORPUS["custom-options"]],
                         ids=["defaults", "maps", "custom-options"])
def test_every_truncation_like_protoc(seed):
    for end in range(len(seed) + 1):
        check_like_protoc(seed[:end])


def _damage(text, data):
    """``text`` with one to three pieces inserted, deleted or overwritten."""
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        how = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = data.draw(st.sampled_from(INSERTS))
        if how == "insert":
            text = text[:at] + piece + text[at:]
        elif how == "delete":
            text = text[:at] + text[at + data.draw(st.integers(1, 8)):]
        else:
            text = text[:at] + piece + text[at + len(piece):]
    return text


@given(st.sampled_from(SEEDS), st.data())
def test_damaged_files_like_protoc(seed, data):
    check_like_protoc(_damage(seed, data))


@given(proto_files(), st.data())
def test_damaged_random_files_like_protoc(text, data):
    check_like_protoc(_damage(text, data))


SOUP = list("{}[]()<>;=,.\"'/*- \n01ax") + ["message ", "M", " int32 ", "enum ", "syntax", '"proto3"', "map"]


@given(st.lists(st.sampled_from(SOUP), max_size=40).map("".join))
def test_token_soup_like_protoc(text):
    check_like_protoc(text)
