//! Whether the opening book is built into the engine. The repository
//! ships it (book/7x6x4.c4book, 60 MB); the package on crates.io leaves it
//! out, as crates.io takes packages of at most 10 MB, and its engine starts
//! with an empty book (it still solves every position, from scratch).
//! Cargo writes `Cargo.toml.orig` into every package it makes: only there
//! may the book be missing, so that a checkout that lost it fails to build.

use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(shipped_book)");
    println!("cargo::rerun-if-changed=book/7x6x4.c4book");
    let packaged = Path::new("Cargo.toml.orig").is_file();
    if !packaged || Path::new("book/7x6x4.c4book").is_file() {
        println!("cargo::rustc-cfg=shipped_book");
    }
}
