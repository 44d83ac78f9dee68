//! Compiles the .proto files with protox (pure Rust), so no system `protoc` is needed.
use std::{env, fs, path::PathBuf};

use protox::prost::Message as _;

const FILES: &[&str] = &[
    "bm/v1/common.proto",
    "bm/v1/identity.proto",
    "bm/v1/business.proto",
    "bm/v1/admin.proto",
    "bm/v1/consent.proto",
    "bm/v1/apps.proto",
    "bm/v1/messaging.proto",
    "bm/v1/broadcasts.proto",
    "bm/v1/conversations.proto",
    "bm/v1/templates.proto",
    "bm/v1/webhooks.proto",
    "bm/v1/jobs.proto",
    "bm/v1/qr.proto",
    "bm/v1/privacy.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=protos");
    let out_dir = PathBuf::from(env::var("OUT_DIR")?);
    let fds = protox::compile(FILES, ["protos"])?;
    fs::write(out_dir.join("bm_descriptor.bin"), fds.encode_to_vec())?;
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        .compile_fds(fds)?;
    Ok(())
}
