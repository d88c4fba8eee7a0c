//! kvlog-arrow-avro-bench: time arrow-avro's streaming `Decoder` on Confluent
//! schema-registry framed Avro messages (see README.md).
//!
//! Input file: a sequence of `u32` little-endian length + payload, each payload
//! being `0x00`, a 4-byte big-endian schema id and one Avro-encoded record.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Instant;

use arrow_avro::reader::{Decoder, ReaderBuilder};
use arrow_avro::schema::{AvroSchema, Fingerprint, FingerprintAlgorithm, SchemaStore};

/// Version of arrow-avro this binary was linked against (read from Cargo.lock by build.rs).
const ARROW_AVRO_VERSION: &str = env!("ARROW_AVRO_VERSION");

const USAGE: &str =
    "usage: kvlog-arrow-avro-bench --payloads FILE --schema ID=PATH [--schema ID=PATH ...] \
[--reader PATH] [--batch-size N] [--repeat N] [--feed message|stream] [--verbose]";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Feed {
    /// One `Decoder::decode` call per payload, as a consumer hands over message values.
    Message,
    /// All framed payloads concatenated into one buffer, fed as one byte stream.
    Stream,
}

struct Args {
    payloads: String,
    schemas: BTreeMap<u32, String>,
    reader: Option<String>,
    batch_size: usize,
    repeat: usize,
    feed: Feed,
    verbose: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut payloads = None;
    let mut schemas = BTreeMap::new();
    let mut reader = None;
    let mut batch_size = 8192usize;
    let mut repeat = 5usize;
    let mut feed = Feed::Message;
    let mut verbose = false;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            match inline.clone() {
                Some(v) => Ok(v),
                None => it.next().ok_or_else(|| format!("{name} needs a value")),
            }
        };
        match flag.as_str() {
            "--payloads" => payloads = Some(value("--payloads")?),
            "--schema" => {
                let v = value("--schema")?;
                let (id, path) = v
                    .split_once('=')
                    .ok_or_else(|| format!("--schema takes ID=PATH, got {v:?}"))?;
                let id: u32 = id
                    .parse()
                    .map_err(|_| format!("--schema: bad schema id {id:?}"))?;
                if schemas.insert(id, path.to_string()).is_some() {
                    return Err(format!("--schema: id {id} given twice"));
                }
            }
            "--reader" => reader = Some(value("--reader")?),
            "--batch-size" => {
                batch_size = value("--batch-size")?
                    .parse()
                    .map_err(|_| "--batch-size takes a positive integer".to_string())?;
                if batch_size == 0 {
                    return Err("--batch-size takes a positive integer".into());
                }
            }
            "--repeat" => {
                repeat = value("--repeat")?
                    .parse()
                    .map_err(|_| "--repeat takes a positive integer".to_string())?;
                if repeat == 0 {
                    return Err("--repeat takes a positive integer".into());
                }
            }
            "--feed" => {
                feed = match value("--feed")?.as_str() {
                    "message" => Feed::Message,
                    "stream" => Feed::Stream,
                    other => return Err(format!("--feed takes message or stream, got {other:?}")),
                }
            }
            "--verbose" | "-v" => verbose = true,
            "--help" | "-h" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let payloads = payloads.ok_or("--payloads is required")?;
    if schemas.is_empty() {
        return Err("at least one --schema ID=PATH is required".into());
    }
    Ok(Args {
        payloads,
        schemas,
        reader,
        batch_size,
        repeat,
        feed,
        verbose,
    })
}

/// Splits the length-prefixed file into its payloads (each a Confluent-framed message).
fn split_payloads(data: &[u8]) -> Result<Vec<&[u8]>, String> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let Some(len_bytes) = data.get(pos..pos + 4) else {
            return Err(format!("truncated length prefix at byte {pos}"));
        };
        let len = u32::from_le_bytes(len_bytes.try_into().unwrap()) as usize;
        pos += 4;
        let Some(payload) = data.get(pos..pos + len) else {
            return Err(format!(
                "payload {} at byte {pos} claims {len} bytes, only {} left",
                out.len(),
                data.len() - pos
            ));
        };
        if len < 5 || payload[0] != 0 {
            return Err(format!(
                "payload {} at byte {pos} is not in the Confluent wire format (0x00 + 4-byte id)",
                out.len()
            ));
        }
        out.push(payload);
        pos += len;
    }
    Ok(out)
}

/// Feeds `buf` to the decoder, flushing whenever a batch fills; returns the rows flushed.
/// Errors if the decoder stops short of the end of `buf` with room left in its batch,
/// i.e. `buf` ends in the middle of a message.
fn feed(
    decoder: &mut Decoder,
    buf: &[u8],
    rows: &mut usize,
    what: &dyn Fn() -> String,
) -> Result<(), String> {
    let mut pos = 0usize;
    while pos < buf.len() {
        let n = decoder
            .decode(&buf[pos..])
            .map_err(|e| format!("{}: {e}", what()))?;
        pos += n;
        if decoder.batch_is_full() {
            flush(decoder, rows)?;
        } else if pos < buf.len() && n == 0 {
            return Err(format!(
                "{}: decoder needs more bytes than the message has",
                what()
            ));
        }
    }
    Ok(())
}

fn flush(decoder: &mut Decoder, rows: &mut usize) -> Result<(), String> {
    // Each batch is counted and dropped: the time includes building it, not keeping it.
    while let Some(batch) = decoder.flush().map_err(|e| format!("flush: {e}"))? {
        *rows += batch.num_rows();
    }
    Ok(())
}

fn run() -> Result<(), String> {
    let args = parse_args().map_err(|e| format!("{e}\n{USAGE}"))?;

    let mut store = SchemaStore::new_with_type(FingerprintAlgorithm::Id);
    for (id, path) in &args.schemas {
        let json =
            std::fs::read_to_string(path).map_err(|e| format!("reading schema {path}: {e}"))?;
        store
            .set(Fingerprint::Id(*id), AvroSchema::new(json))
            .map_err(|e| format!("registering schema {id} ({path}): {e}"))?;
    }
    let reader_schema = match &args.reader {
        Some(path) => Some(AvroSchema::new(
            std::fs::read_to_string(path)
                .map_err(|e| format!("reading reader schema {path}: {e}"))?,
        )),
        None => None,
    };
    let build = || -> Result<Decoder, String> {
        let mut b = ReaderBuilder::new()
            .with_writer_schema_store(store.clone())
            .with_batch_size(args.batch_size);
        if let Some(r) = &reader_schema {
            b = b.with_reader_schema(r.clone());
        }
        b.build_decoder()
            .map_err(|e| format!("building decoder: {e}"))
    };

    // Everything below up to the timed loop is setup: file read, split, concatenation.
    let data =
        std::fs::read(&args.payloads).map_err(|e| format!("reading {}: {e}", args.payloads))?;
    let payloads = split_payloads(&data)?;
    let bytes: usize = payloads.iter().map(|p| p.len()).sum();
    let stream: Vec<u8> = if args.feed == Feed::Stream {
        payloads.concat()
    } else {
        Vec::new()
    };

    if args.verbose {
        let mut d = build()?;
        eprintln!(
            "arrow-avro {ARROW_AVRO_VERSION}, {} payloads, {bytes} bytes",
            payloads.len()
        );
        // Decode the first 3 payloads and show them, to check the decoded values by eye.
        let mut n = 0usize;
        for (i, p) in payloads.iter().take(3).enumerate() {
            d.decode(p).map_err(|e| format!("payload {i}: {e}"))?;
        }
        if let Some(batch) = d.flush().map_err(|e| format!("flush: {e}"))? {
            n += batch.num_rows();
            eprintln!("Arrow schema: {:#?}", batch.schema());
            for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
                eprintln!("{}: {:?}", field.name(), column);
            }
        }
        eprintln!("({n} rows shown)");
    }

    let mut seconds = Vec::with_capacity(args.repeat);
    let mut rows_per_run = 0usize;
    for run in 0..args.repeat {
        let mut decoder = build()?;
        let mut rows = 0usize;
        let t0 = Instant::now();
        match args.feed {
            Feed::Message => {
                for (i, p) in payloads.iter().enumerate() {
                    feed(&mut decoder, p, &mut rows, &|| format!("payload {i}"))?;
                }
            }
            Feed::Stream => feed(&mut decoder, &stream, &mut rows, &|| "stream".to_string())?,
        }
        flush(&mut decoder, &mut rows)?;
        let dt = t0.elapsed().as_secs_f64();
        if rows != payloads.len() {
            return Err(format!(
                "run {run}: decoded {rows} rows from {} payloads",
                payloads.len()
            ));
        }
        rows_per_run = rows;
        seconds.push(dt);
    }

    let best = seconds.iter().cloned().fold(f64::INFINITY, f64::min);
    let secs: Vec<String> = seconds.iter().map(|s| format!("{s:.6}")).collect();
    println!(
        "{{\"rows\": {rows_per_run}, \"bytes\": {bytes}, \"seconds\": [{}], \"best_rows_per_s\": {:.1}, \
\"arrow_avro_version\": \"{ARROW_AVRO_VERSION}\", \"batch_size\": {}, \"feed\": \"{}\", \"reader_schema\": {}}}",
        secs.join(", "),
        rows_per_run as f64 / best,
        args.batch_size,
        if args.feed == Feed::Message { "message" } else { "stream" },
        args.reader.is_some(),
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kvlog-arrow-avro-bench: {e}");
            ExitCode::FAILURE
        }
    }
}
