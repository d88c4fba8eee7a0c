"""Write an input for kvlog-arrow-avro-bench (see README.md).

    python asv_bench/rust_avro/make_input.py OUTDIR --records N [--schema orders|simple]

writes into OUTDIR:

* ``payloads.bin``: N payloads, each a 4-byte little-endian length followed by
  one Confluent schema-registry framed message (0x00, 4-byte big-endian
  schema id, Avro binary encoding of one record, written with fastavro's
  ``schemaless_writer``);
* ``schema-<ID>.avsc``: the writer schema registered under that id.

The records are drawn from ``random.Random(seed)``, so the same arguments give
the same bytes.
"""

import argparse
import datetime
import decimal
import io
import json
import os
import random
import struct
import sys

import fastavro

ORDERS_SCHEMA = {
    "type": "record",
    "name": "Order",
    "namespace": "kvlog.bench",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "customer", "type": ["null", "string"]},
        {
            "name": "amount",
            "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2},
        },
        {"name": "created_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "counters", "type": {"type": "map", "values": "int"}},
        {
            "name": "status",
            "type": {
                "type": "enum",
                "name": "Status",
                "symbols": ["PENDING", "PAID", "SHIPPED", "DELIVERED", "CANCELLED"],
            },
        },
        {
            "name": "shipping",
            "type": [
                "null",
                {
                    "type": "record",
                    "name": "Address",
                    "fields": [
                        {"name": "city", "type": "string"},
                        {"name": "zip", "type": "int"},
                    ],
                },
            ],
        },
        {"name": "ref", "type": ["int", "string", "null"]},
        {"name": "score", "type": "float"},
        {"name": "ship_date", "type": {"type": "int", "logicalType": "date"}},
    ],
}

SIMPLE_SCHEMA = {
    "type": "record",
    "name": "Simple",
    "namespace": "kvlog.bench",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "name", "type": "string"},
        {"name": "price", "type": "double"},
        {"name": "qty", "type": "int"},
    ],
}

SCHEMAS = {"orders": ORDERS_SCHEMA, "simple": SIMPLE_SCHEMA}

WORDS = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
    "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa",
]
CITIES = ["Lisboa", "Porto", "Berlin", "Zürich", "Osaka", "Toronto", "Nairobi", "Lima"]
TAGS = ["new", "gift", "express", "fragile", "bulk", "promo", "vip", "return"]
COUNTER_KEYS = ["views", "clicks", "items", "retries", "pages"]
STATUSES = ORDERS_SCHEMA["fields"][6]["type"]["symbols"]
EPOCH_MS = 1_700_000_000_000
UTC = datetime.timezone.utc
DAY0 = datetime.date(2023, 1, 1)


def orders_record(rng, i):
    r = rng.random()
    if r < 0.4:
        ref = rng.randrange(-(2**31), 2**31)
    elif r < 0.8:
        ref = "R-%08d" % rng.randrange(10**8)
    else:
        ref = None
    return {
        "id": 10_000_000 + i,
        "customer": None if rng.random() < 0.2 else "%s %s" % (rng.choice(WORDS), rng.choice(WORDS)),
        "amount": decimal.Decimal(rng.randrange(-10**9, 10**9)).scaleb(-2),
        "created_at": datetime.datetime.fromtimestamp(
            (EPOCH_MS + rng.randrange(0, 86_400_000 * 365)) / 1000, tz=UTC
        ),
        "tags": rng.sample(TAGS, rng.randrange(0, 4)),
        "counters": {k: rng.randrange(0, 100_000) for k in rng.sample(COUNTER_KEYS, rng.randrange(0, 4))},
        "status": rng.choice(STATUSES),
        "shipping": None if rng.random() < 0.3 else {"city": rng.choice(CITIES), "zip": rng.randrange(10000, 99999)},
        "ref": ref,
        "score": rng.random() * 5.0,
        "ship_date": DAY0 + datetime.timedelta(days=rng.randrange(0, 1000)),
    }


def simple_record(rng, i):
    return {
        "id": i,
        "name": "%s-%s-%d" % (rng.choice(WORDS), rng.choice(WORDS), rng.randrange(1000)),
        "price": round(rng.uniform(0.5, 5000.0), 2),
        "qty": rng.randrange(1, 1000),
    }


RECORDS = {"orders": orders_record, "simple": simple_record}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--records", type=int, required=True)
    ap.add_argument("--schema", choices=sorted(SCHEMAS), default="orders")
    ap.add_argument("--schema-id", type=int, default=1)
    ap.add_argument("--seed", type=int, default=20240601)
    args = ap.parse_args(argv)
    if args.records < 0:
        ap.error("--records must be >= 0")
    if not 0 <= args.schema_id < 2**32:
        ap.error("--schema-id must fit in 4 bytes")

    schema_json = SCHEMAS[args.schema]
    parsed = fastavro.parse_schema(schema_json)
    make = RECORDS[args.schema]
    rng = random.Random(args.seed)
    prefix = b"\x00" + struct.pack(">I", args.schema_id)

    os.makedirs(args.outdir, exist_ok=True)
    schema_path = os.path.join(args.outdir, "schema-%d.avsc" % args.schema_id)
    with open(schema_path, "w", encoding="utf-8") as f:
        json.dump(schema_json, f, indent=2, ensure_ascii=False)
        f.write("\n")

    payload_path = os.path.join(args.outdir, "payloads.bin")
    body = io.BytesIO()
    total = 0
    with open(payload_path, "wb") as out:
        for i in range(args.records):
            body.seek(0)
            body.truncate()
            fastavro.schemaless_writer(body, parsed, make(rng, i))
            frame = prefix + body.getvalue()
            out.write(struct.pack("<I", len(frame)))
            out.write(frame)
            total += len(frame)

    print(
        json.dumps(
            {
                "payloads": payload_path,
                "schema": "%d=%s" % (args.schema_id, schema_path),
                "records": args.records,
                "framed_bytes": total,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
