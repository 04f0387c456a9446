//! Speed of `spmd-opt --spmd-reconverge` on random code-shaped CFGs of
//! 1k..100k blocks (35% divergent branches), against the floor of any MLIR
//! text tool: `spmd-opt` parse + verify + print of the same file. Prints wall
//! time (best of 3), peak memory (`/usr/bin/time`) and Flow blocks added.
//!
//! `cargo build --release && cargo run --release --example reconverge_bench [sizes...]`
//! (uses target/release/spmd-opt, or `SPMD_OPT=<path>`).

use std::{process::Command, time::Instant};

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.replace('_', "").parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1_000, 10_000, 100_000]
    } else {
        sizes
    };
    let tool = std::env::var("SPMD_OPT").unwrap_or_else(|_| "target/release/spmd-opt".into());
    println!(
        "{:>8} {:>12} {:>12} {:>7} {:>10} {:>10} {:>8}",
        "blocks", "parse+print", "reconverge", "ratio", "peak MB", "floor MB", "flows"
    );
    for &blocks in &sizes {
        let (text, _) = spmd::testing::mlir_cfg::random_function(42, blocks, 350);
        let path = std::env::temp_dir().join(format!("spmd-bench-{blocks}.mlir"));
        std::fs::write(&path, text).expect("write input");
        let path = path.to_str().unwrap();
        let (floor, floor_mb, _) = measure(&tool, &[path, "-o", "/dev/null"]);
        let (time, mb, output) = measure(&tool, &[path, "--spmd-reconverge"]);
        let flows = output.matches("spmd.flow_br").count();
        println!(
            "{blocks:>8} {:>10.3} s {:>10.3} s {:>6.2}x {:>10.1} {:>10.1} {flows:>8}",
            floor,
            time,
            time / floor,
            mb,
            floor_mb
        );
    }
}

/// Best-of-3 wall time, peak RSS in MB and stdout of `tool args`.
fn measure(tool: &str, args: &[&str]) -> (f64, f64, String) {
    let mut best = f64::MAX;
    let mut peak = 0.0;
    let mut stdout = String::new();
    for _ in 0..3 {
        let start = Instant::now();
        let output = Command::new("/usr/bin/time")
            .arg("-f")
            .arg("%M")
            .arg(tool)
            .args(args)
            .output()
            .expect("run spmd-opt under /usr/bin/time");
        best = best.min(start.elapsed().as_secs_f64());
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        peak = stderr
            .lines()
            .last()
            .and_then(|l| l.trim().parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0;
        stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    }
    (best, peak, stdout)
}
