//! Exposes the arrow-avro version resolved in Cargo.lock as ARROW_AVRO_VERSION.

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let lock_path = std::path::Path::new(&dir).join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock_path.display());
    let lock = std::fs::read_to_string(&lock_path).unwrap_or_default();
    let mut version = "unknown".to_string();
    let mut in_arrow_avro = false;
    for line in lock.lines() {
        let line = line.trim();
        if line == "[[package]]" {
            in_arrow_avro = false;
        } else if line == "name = \"arrow-avro\"" {
            in_arrow_avro = true;
        } else if in_arrow_avro {
            if let Some(v) = line.strip_prefix("version = \"") {
                version = v.trim_end_matches('"').to_string();
                break;
            }
        }
    }
    println!("cargo:rustc-env=ARROW_AVRO_VERSION={version}");
}
