//! Tells the kit the target this program is built for: its programs are
//! built for the same, and their compiler flags go in that target's
//! cargo variable (see `kit::flags`).

fn main() {
    let target = std::env::var("TARGET").expect("cargo sets TARGET for build scripts");
    println!("cargo:rustc-env=CONNECT4_BUILT_FOR={target}");
    println!("cargo:rerun-if-changed=build.rs");
}
