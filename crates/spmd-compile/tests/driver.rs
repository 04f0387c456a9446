//! `spmd-compile` as a user meets it: every `--emit` stage of every input
//! language, the scripts that wrap it, libdevice for MLIR input, and one
//! clear message (stage and file) for each kind of failure.

mod common;

use common::{assemble, driver, has_cuda, ptxas, root};
use std::process::Command;

const DIVERGENT_KERNEL: &str = "examples/divergent-kernel.mlir";

fn stdout(output: &std::process::Output) -> String {
    assert!(
        output.status.success(),
        "spmd-compile failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

fn path(relative: &str) -> String {
    root().join(relative).display().to_string()
}

/// The message of a failed run: exit status 1, the diagnostics, then one
/// line naming the file and the stage.
fn failure(output: &std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(
        output.status.code(),
        Some(1),
        "expected a failure: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn help_and_bad_command_lines() {
    let help = driver(&["--help"], None);
    assert!(stdout(&help).contains("--emit STAGE"));
    for (arguments, reason) in [
        (&["--emit", "ptz", "k.cu"][..], "--emit must be"),
        (&["--mcpu", "gfx90a", "k.mlir"], "--mcpu must look like"),
        (&[][..], "no input file"),
    ] {
        let output = driver(arguments, None);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {stderr}");
        assert!(stderr.contains(reason), "{arguments:?}: {stderr}");
    }
}

#[test]
fn mlir_input_stops_at_every_stage() {
    let input = path(DIVERGENT_KERNEL);
    let wave = stdout(&driver(&["--emit", "wave", &input], None));
    assert!(wave.contains("spmd."), "no wave-level op:\n{wave}");
    let nvvm = stdout(&driver(&["--emit", "nvvm", &input], None));
    assert!(
        nvvm.contains("llvm.func") && nvvm.contains("nvvm."),
        "{nvvm}"
    );
    let llvm = stdout(&driver(&["--emit", "llvm", &input], None));
    assert!(
        llvm.contains("define") && llvm.contains("nvptx64-nvidia-cuda"),
        "{llvm}"
    );
    for via in ["llc", "isa"] {
        let ptx = stdout(&driver(&["--via", via, &input], None));
        assert!(
            ptx.contains(".entry") && ptx.contains(".target sm_90"),
            "{via}:\n{ptx}"
        );
    }
    // Wave-level input skips spmd-reconverge and spmd-predicate.
    let from_wave = driver(&["--wave-level", "-"], Some(&wave));
    assert!(stdout(&from_wave).contains(".entry"));
}

#[test]
fn output_file_and_ptx_version() {
    let output = std::env::temp_dir().join(format!("spmd-compile-{}.ptx", std::process::id()));
    let written = driver(
        &[
            "--mcpu",
            "sm_70",
            "-o",
            output.to_str().unwrap(),
            &path(DIVERGENT_KERNEL),
        ],
        None,
    );
    assert!(written.status.success() && written.stdout.is_empty());
    let ptx = std::fs::read_to_string(&output).expect("the -o file");
    let _ = std::fs::remove_file(&output);
    // Before sm_75 the version is raised to 6.2 (activemask).
    assert!(
        ptx.contains(".version 6.2") && ptx.contains(".target sm_70"),
        "{ptx}"
    );
    let pinned = stdout(&driver(&["--ptx", "80", &path(DIVERGENT_KERNEL)], None));
    assert!(pinned.contains(".version 8.0"), "{pinned}");
}

/// `--target amdgcn`: wave-level code through ROCDL to AMDGPU assembly and
/// code objects, wave64 on gfx90a and wave32 on gfx1100; `--reference` is
/// MLIR's own route for the same kernel.
#[test]
fn amdgpu_target_emits_assembly_and_objects() {
    // A divergent loop that needs no converged lanes: by default a lane
    // loop, which the backend lowers itself (no ballot); with
    // `--lane-branches false` its back edge is a wave-wide decision (a
    // ballot).
    let input = path("mlir-tests/nvvm/Inputs/while-break.mlir");
    let rocdl = stdout(&driver(
        &["--target", "amdgcn", "--emit", "rocdl", &input],
        None,
    ));
    assert!(
        !rocdl.contains("rocdl.ballot") && !rocdl.contains("nvvm."),
        "{rocdl}"
    );
    for (chip, mask) in [("gfx90a", "i64"), ("gfx1100", "i32")] {
        let llvm = stdout(&driver(
            &[
                "--target",
                "amdgcn",
                "--mcpu",
                chip,
                "--lane-branches",
                "false",
                "--emit",
                "llvm",
                &input,
            ],
            None,
        ));
        assert!(
            llvm.contains("amdgcn-amd-amdhsa")
                && llvm.contains(&format!("@llvm.amdgcn.ballot.{mask}")),
            "{chip}:\n{llvm}"
        );
        let asm = stdout(&driver(
            &["--target", "amdgcn", "--mcpu", chip, &input],
            None,
        ));
        assert!(
            asm.contains(&format!(".amdgcn_target \"amdgcn-amd-amdhsa--{chip}")),
            "{asm}"
        );
        let object = driver(
            &[
                "--target", "amdgcn", "--mcpu", chip, "--emit", "obj", &input,
            ],
            None,
        );
        assert!(object.status.success() && object.stdout.starts_with(b"\x7fELF"));
        let reference = stdout(&driver(
            &["--target", "amdgcn", "--mcpu", chip, "--reference", &input],
            None,
        ));
        assert!(reference.contains(".amdgcn_target") && !reference.contains("ballot"));
    }
    // A kernel made for NVIDIA GPUs: a clear refusal.
    let llvm_form = failure(&driver(
        &[
            "--target",
            "amdgcn",
            &path("mlir-tests/nvvm/Inputs/llvm-switch-loop.mlir"),
        ],
        None,
    ));
    assert!(llvm_form.contains("is an NVIDIA kernel"), "{llvm_form}");
    // An RDNA chip in waves of 64: 64-bit ballots, and the backend told so.
    let wave64 = [
        "--target",
        "amdgcn",
        "--mcpu",
        "gfx1100",
        "--wave-size",
        "64",
        "--lane-branches",
        "false",
    ];
    let llvm = stdout(&driver(
        &[&wave64[..], &["--emit", "llvm", &input]].concat(),
        None,
    ));
    assert!(llvm.contains("ballot.i64"), "{llvm}");
    let asm = stdout(&driver(&[&wave64[..], &[input.as_str()]].concat(), None));
    assert!(asm.contains(".amdhsa_wavefront_size32 0"), "{asm}");
}

/// MLIR math on a gpu.func becomes libdevice calls in convert-gpu-to-nvvm;
/// the driver links those functions, so the PTX is complete.
#[test]
fn mlir_math_is_linked_from_libdevice() {
    if !has_cuda() {
        return;
    }
    let kernel = r#"
module attributes {gpu.container_module} {
gpu.module @k {
gpu.func @expo(%out: memref<?xf32>) kernel {
  %tid = gpu.thread_id x
  %t = arith.index_cast %tid : index to i32
  %f = arith.sitofp %t : i32 to f32
  %c8 = arith.constant 8 : i32
  %p = arith.cmpi ult, %t, %c8 : i32
  cf.cond_br %p, ^a, ^b(%f : f32)
^a:
  %e = math.exp %f : f32
  cf.br ^b(%e : f32)
^b(%r: f32):
  memref.store %r, %out[%tid] : memref<?xf32>
  gpu.return
}
}
}"#;
    let llvm = stdout(&driver(&["--emit", "llvm", "-"], Some(kernel)));
    assert!(
        llvm.contains("define internal") && llvm.contains("@__nv_expf"),
        "{llvm}"
    );
    let ptx = stdout(&driver(&["-"], Some(kernel)));
    assert!(!ptx.contains(".extern .func"), "unresolved call:\n{ptx}");
    if let Some(ptxas) = ptxas() {
        let scratch =
            std::env::temp_dir().join(format!("spmd-libdevice-{}.ptx", std::process::id()));
        let assembled = assemble(&ptxas, ptx.as_bytes(), "sm_90", &scratch);
        let _ = std::fs::remove_file(&scratch);
        assembled.expect("ptxas accepts the linked PTX");
    }
}

#[test]
fn cuda_and_llvm_ir_inputs_stop_at_every_stage() {
    if !has_cuda() {
        return;
    }
    let input = path("examples/cuda/divergent-while.cu");
    let clang_ir = stdout(&driver(&["--emit", "clang", &input], None));
    assert!(clang_ir.contains("ptx_kernel"), "{clang_ir}");
    let import = stdout(&driver(&["--emit", "import", &input], None));
    assert!(
        import.contains("llvm.func") && import.contains("ptx_kernel"),
        "{import}"
    );
    let wave = stdout(&driver(&["--emit", "wave", &input], None));
    assert!(wave.contains("spmd."), "{wave}");
    let ptx = stdout(&driver(&[&input], None));
    assert!(ptx.contains(".entry collatz_steps"), "{ptx}");
    let reference = stdout(&driver(&["--reference", &input], None));
    assert!(reference.contains(".entry collatz_steps"), "{reference}");
    // With exec masks everywhere, spmd's code votes; clang's never does.
    let masked = stdout(&driver(&["--lane-branches", "false", &input], None));
    assert!(
        masked.contains("vote.sync") && !reference.contains("vote.sync"),
        "{masked}"
    );

    // The same LLVM IR as text on stdin and as bitcode in a file.
    let from_text = stdout(&driver(&["-x", "llvm", "-"], Some(&clang_ir)));
    assert_eq!(from_text, ptx);
    let directory = std::env::temp_dir().join(format!("spmd-compile-bc-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let (ll, bc) = (directory.join("k.ll"), directory.join("k.bc"));
    std::fs::write(&ll, &clang_ir).unwrap();
    let assembled = Command::new("/usr/lib/llvm-22/bin/llvm-as")
        .arg(&ll)
        .arg("-o")
        .arg(&bc)
        .status()
        .expect("llvm-as");
    assert!(assembled.success());
    let from_bitcode = stdout(&driver(&[bc.to_str().unwrap()], None));
    let _ = std::fs::remove_dir_all(&directory);
    assert_eq!(from_bitcode, ptx);
}

/// scripts/cuda-to-ptx.sh and scripts/kernel-to-ptx.sh are the driver.
#[test]
fn the_scripts_are_thin_wrappers() {
    let run = |script: &str, arguments: &[&str]| {
        let output = Command::new(root().join("scripts").join(script))
            .args(arguments)
            .env(
                "SPMD_BIN_DIR",
                std::path::Path::new(common::DRIVER).parent().unwrap(),
            )
            .output()
            .expect("run the script");
        stdout(&output)
    };
    let input = path(DIVERGENT_KERNEL);
    assert_eq!(
        run("kernel-to-ptx.sh", &["--mcpu", "sm_80", &input]),
        stdout(&driver(&["--mcpu", "sm_80", &input], None))
    );
    if has_cuda() {
        let input = path("examples/cuda/reduce-warp.cu");
        assert_eq!(
            run("cuda-to-ptx.sh", &["--emit", "nvvm", &input]),
            stdout(&driver(&["--emit", "nvvm", &input], None))
        );
    }
}

#[test]
fn each_failure_names_its_stage_and_file() {
    let missing = failure(&driver(&["/nonexistent/k.mlir"], None));
    assert!(
        missing.contains("cannot read '/nonexistent/k.mlir'"),
        "{missing}"
    );

    let bad_mlir = failure(&driver(&["-"], Some("module {\n  func.func @f( {\n}\n")));
    assert!(bad_mlir.contains("<stdin>:2:"), "no location: {bad_mlir}");
    assert!(
        bad_mlir.contains("spmd-compile: error: <stdin>: parsing MLIR failed"),
        "{bad_mlir}"
    );

    let bad_ir = failure(&driver(
        &["-x", "llvm", "-"],
        Some("define void @f() {\n  bogus\n}\n"),
    ));
    assert!(bad_ir.contains("<stdin>:2:"), "no location: {bad_ir}");
    assert!(bad_ir.contains("the LLVM IR import failed"), "{bad_ir}");

    for via in ["llc", "isa"] {
        let nothing = failure(&driver(&["--via", via, "-"], Some("module {}")));
        assert!(nothing.contains("nothing to compile"), "{nothing}");
        assert!(
            nothing.contains("extracting the device code failed"),
            "{nothing}"
        );
    }

    // A fatal error of the backend is a message and exit status 1, not an abort.
    let unselectable = failure(&driver(
        &["-"],
        Some(
            "module {\n  llvm.func ptx_kernelcc @k() {\n    \
             llvm.call_intrinsic \"llvm.x86.sse2.pause\"() : () -> ()\n    \
             llvm.return\n  }\n}\n",
        ),
    ));
    assert!(
        unselectable.contains("spmd-compile: error: <stdin>: LLVM: Cannot select"),
        "{unselectable}"
    );

    if has_cuda() {
        let bad_cuda = failure(&driver(
            &["-x", "cuda", "-"],
            Some("__global__ void k(int *p) { p[0] = undeclared; }\n"),
        ));
        assert!(
            bad_cuda.contains("use of undeclared identifier"),
            "{bad_cuda}"
        );
        assert!(bad_cuda.contains("<stdin>: clang failed"), "{bad_cuda}");
    }
}

#[test]
fn amdgpu_backend_crashes_are_survived() {
    // `llc` dies with a segmentation fault on this module (LLVM 22's
    // register coalescer); the driver catches the crash and retries with
    // the lane bits computed in vector registers.
    let input = path("crates/spmd-compile/tests/inputs/inverse-ballot-of-constant.ll");
    let output = driver(
        &[
            "--target", "amdgcn", "--mcpu", "gfx90a", "--emit", "obj", &input,
        ],
        None,
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stdout.starts_with(b"\x7fELF"));
}
