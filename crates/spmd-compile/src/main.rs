//! `spmd-compile`: spmd's compiler driver. CUDA (through clang-22 with
//! NVIDIA's headers and libdevice), LLVM IR or MLIR kernels in, PTX out,
//! through spmd's passes; it can stop after any stage (`--emit`). See
//! [`options::USAGE`] and docs/cuda.md.
//!
//! Everything but clang runs in this process: the LLVM IR import, spmd's and
//! MLIR's passes, the translation to LLVM IR and LLVM's NVPTX backend
//! (`cpp/SpmdCompile.cpp`). A failure prints its diagnostics (with their
//! locations) and one line naming the stage and the file, and exits with 1;
//! a bad command line exits with 2.

mod clang;
mod ffi;
mod mlir;
mod options;
mod shared_work;

use mlir::{BackendOutput, Session};
use options::{Command, Emit, Language, Options, SharedWork, Target, Via};
use std::{io::Read, io::Write, path::Path};

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let options = match options::parse(&arguments) {
        Ok(Command::Help) => {
            print!("{}", options::USAGE);
            return;
        }
        Ok(Command::Compile(options)) => options,
        Err(message) => {
            eprintln!("spmd-compile: error: {message}");
            std::process::exit(2);
        }
    };
    let file = options
        .input
        .as_ref()
        .map_or_else(|| "<stdin>".to_string(), |path| path.display().to_string());
    mlir::exit_on_llvm_fatal_errors(&file);
    let result = compile(&options, &file).and_then(|output| write_output(&options, &output));
    if let Err(failure) = result {
        for line in &failure.details {
            eprintln!("{line}");
        }
        eprintln!("spmd-compile: error: {}: {} failed", file, failure.stage);
        std::process::exit(1);
    }
}

/// A failed stage and what it said.
struct Failure {
    stage: &'static str,
    details: Vec<String>,
}

impl Failure {
    fn new(stage: &'static str, detail: impl Into<String>) -> Self {
        Self {
            stage,
            details: vec![detail.into()],
        }
    }

    fn from_session(stage: &'static str, session: &Session) -> Self {
        Self {
            stage,
            details: session.take_diagnostics(),
        }
    }
}

/// Runs the stages up to `--emit` and returns the last one's text.
fn compile(options: &Options, file: &str) -> Result<Vec<u8>, Failure> {
    let source = read_input(options).map_err(|error| Failure::new("reading the input", error))?;
    let ptx = match options.target {
        Target::Nvptx => ptx_version(options)?,
        Target::Amdgcn => 0,
    };

    let session = Session::new();
    let mut module = match options.language {
        Language::Mlir => parse_mlir(&session, &source, file)?,
        Language::LlvmIr | Language::Cuda => {
            match import_llvm_ir(options, &session, source, file, ptx)? {
                Step::Next(module) => module,
                Step::Done(output) => return Ok(output),
            }
        }
    };

    check_amdgcn_input(options, &session, &module, file)?;
    if options.reference {
        return lower_reference(&session, &mut module, options, ptx);
    }
    lower_spmd(&session, &mut module, options, ptx)
}

/// The outcome of a front-end stage: what the next stage works on, or the
/// final output (the stage `--emit` stops at, or clang's reference PTX).
enum Step<T> {
    Next(T),
    Done(Vec<u8>),
}

/// Parses the MLIR input `source`.
fn parse_mlir<'s>(
    session: &'s Session,
    source: &[u8],
    file: &str,
) -> Result<melior::ir::Module<'s>, Failure> {
    let text = std::str::from_utf8(source)
        .map_err(|_| Failure::new("parsing MLIR", format!("{file}: not UTF-8 text")))?;
    session
        .parse(text, file)
        .map_err(|()| Failure::from_session("parsing MLIR", session))
}

/// Imports the LLVM IR input (for CUDA, clang's output) into MLIR.
fn import_llvm_ir<'s>(
    options: &Options,
    session: &'s Session,
    source: Vec<u8>,
    file: &str,
    ptx: u32,
) -> Result<Step<melior::ir::Module<'s>>, Failure> {
    let llvm_ir = if options.language == Language::Cuda {
        match run_clang(options, &source, file, ptx)? {
            Step::Next(compiled) => compiled,
            Step::Done(output) => return Ok(Step::Done(output)),
        }
    } else {
        source
    };
    let module = session
        .import_llvm_ir(&llvm_ir, file)
        .map_err(|()| Failure::from_session("the LLVM IR import", session))?;
    print_warnings(session);
    if options.emit == Emit::Import {
        return Ok(Step::Done(module.as_operation().to_string().into_bytes()));
    }
    Ok(Step::Next(module))
}

/// Compiles the CUDA input with clang: LLVM IR to import, or the final
/// output for `--reference` (PTX) and `--emit clang`.
fn run_clang(
    options: &Options,
    source: &[u8],
    file: &str,
    ptx: u32,
) -> Result<Step<Vec<u8>>, Failure> {
    let output = if options.reference {
        clang::ClangOutput::Ptx
    } else {
        clang::ClangOutput::LlvmIr
    };
    let root = clang::cuda_root(options).map_err(|error| Failure::new("clang", error))?;
    let compiled = clang::compile(
        options,
        &root,
        options.input.as_deref(),
        source,
        ptx,
        output,
    )
    .map_err(|error| Failure::new("clang", error))?;
    if options.reference || options.emit == Emit::Clang {
        return Ok(Step::Done(compiled));
    }
    if !defines_a_kernel(&compiled) {
        return Err(Failure::new(
            "clang",
            format!("{file}: error: no __global__ function in the file"),
        ));
    }
    Ok(Step::Next(compiled))
}

/// For `--target amdgcn`, rejects an input holding an NVIDIA kernel.
fn check_amdgcn_input(
    options: &Options,
    session: &Session,
    module: &melior::ir::Module,
    file: &str,
) -> Result<(), Failure> {
    if options.target == Target::Amdgcn {
        if let Some(kernel) = session.nvidia_kernel(module) {
            return Err(Failure::new(
                "checking the input",
                format!(
                    "{file}: error: '{kernel}' is an NVIDIA kernel (ptx_kernel calling \
                     convention or NVVM operations), not one for --target amdgcn"
                ),
            ));
        }
    }
    Ok(())
}

/// `--reference`: MLIR's own lowering to NVVM or ROCDL, no spmd pass,
/// then the stages of `--emit`.
fn lower_reference(
    session: &Session,
    module: &mut melior::ir::Module,
    options: &Options,
    ptx: u32,
) -> Result<Vec<u8>, Failure> {
    // MLIR's own route: no spmd pass.
    let (pipeline, stage) = match options.target {
        Target::Nvptx => (
            "builtin.module(convert-scf-to-cf,gpu.module(convert-gpu-to-nvvm),\
             llvm.func(convert-to-llvm),reconcile-unrealized-casts)"
                .to_string(),
            "convert-gpu-to-nvvm",
        ),
        Target::Amdgcn => (
            format!(
                "builtin.module(convert-scf-to-cf,gpu.module(convert-gpu-to-rocdl{{chipset={}}}),\
                 reconcile-unrealized-casts)",
                options.mcpu
            ),
            "convert-gpu-to-rocdl",
        ),
    };
    session
        .run_pipeline(module, &pipeline)
        .map_err(|()| Failure::from_session(stage, session))?;
    emit_lowered(session, module, options, ptx)
}

/// spmd's route: the wave-level passes (unless the input is already
/// wave-level), the lowering to NVVM or ROCDL, then the stages of `--emit`.
fn lower_spmd(
    session: &Session,
    module: &mut melior::ir::Module,
    options: &Options,
    ptx: u32,
) -> Result<Vec<u8>, Failure> {
    if !options.wave_level && options.lane_branches {
        match options.shared_work {
            SharedWork::Reconverge => {}
            SharedWork::Lanes => session.mark_lane_shared_work(module, &|_| true),
            SharedWork::Auto => shared_work::choose(session, module, options)?,
        }
    }
    run_wave_passes(session, module, options)?;
    if options.emit == Emit::Wave {
        return Ok(module.as_operation().to_string().into_bytes());
    }
    run_lowering(session, module, options)?;
    emit_lowered(session, module, options, ptx)
}

/// `spmd-reconverge` and `spmd-predicate`, unless the input is wave-level.
fn run_wave_passes(
    session: &Session,
    module: &mut melior::ir::Module,
    options: &Options,
) -> Result<(), Failure> {
    if options.wave_level {
        return Ok(());
    }
    let lanes = options.lane_branches;
    let pipeline = format!(
        "builtin.module(spmd-reconverge{{lane-branches={lanes}}},\
         spmd-predicate{{wave-size={} lane-branches={lanes}}})",
        options.wave_size
    );
    session
        .run_pipeline(module, &pipeline)
        .map_err(|()| Failure::from_session("spmd-reconverge and spmd-predicate", session))
}

/// The wave-level module to the LLVM dialect with NVVM or ROCDL.
fn run_lowering(
    session: &Session,
    module: &mut melior::ir::Module,
    options: &Options,
) -> Result<(), Failure> {
    let lanes = options.lane_branches;
    let (pipeline, stage) = match options.target {
        Target::Nvptx => (
            format!(
                "builtin.module(spmd-gpu-to-nvvm{{predicate=false wave-size={} lane-branches={lanes}}})",
                options.wave_size
            ),
            "the lowering to NVVM",
        ),
        Target::Amdgcn => (
            format!(
                "builtin.module(spmd-gpu-to-rocdl{{predicate=false wave-size={} chipset={}}})",
                options.wave_size, options.mcpu
            ),
            "the lowering to ROCDL",
        ),
    };
    session
        .run_pipeline(module, &pipeline)
        .map_err(|()| Failure::from_session(stage, session))
}

/// The module in the LLVM dialect (and NVVM or ROCDL) to what `--emit`
/// asks for: the MLIR itself, LLVM IR, assembly or an object.
fn emit_lowered(
    session: &Session,
    module: &mut melior::ir::Module,
    options: &Options,
    ptx: u32,
) -> Result<Vec<u8>, Failure> {
    print_warnings(session);
    if options.emit == Emit::Nvvm {
        return Ok(module.as_operation().to_string().into_bytes());
    }
    if options.target == Target::Amdgcn && !options.reference {
        // spmd's wave-level code branches uniformly except at lane guards:
        // the backend must not structurize it again.
        session.keep_uniform_regions();
    }
    let libdevice = match options.target {
        Target::Nvptx => clang::cuda_root(options)
            .map(|root| clang::libdevice_in(&root).display().to_string())
            .unwrap_or_default(),
        Target::Amdgcn => String::new(),
    };
    let features = options.features(ptx);
    match options.via {
        Via::Llc => {
            let device = session
                .device_module(module)
                .map_err(|()| Failure::from_session("extracting the device code", session))?;
            let output = match options.emit {
                Emit::Llvm => BackendOutput::LlvmIr,
                Emit::Obj => BackendOutput::Object,
                _ => BackendOutput::Assembly,
            };
            let stage = match options.target {
                Target::Nvptx => "the NVPTX backend",
                Target::Amdgcn => "the AMDGPU backend",
            };
            session
                .backend(
                    &device,
                    options.target.triple(),
                    &options.mcpu,
                    &features,
                    &libdevice,
                    output,
                )
                .map_err(|()| Failure::from_session(stage, session))
        }
        Via::Isa => binary_assembly(session, module, options, &features, &libdevice),
    }
}

/// Whether clang's LLVM IR text defines a kernel (`define ... ptx_kernel`).
fn defines_a_kernel(llvm_ir: &[u8]) -> bool {
    String::from_utf8_lossy(llvm_ir)
        .lines()
        .any(|line| line.starts_with("define ") && line.contains(" ptx_kernel "))
}

/// `--via isa`: nvvm-attach-target and gpu-module-to-binary{format=isa} on
/// the module (an LLVM-dialect module is first wrapped in a gpu.module).
fn binary_assembly(
    session: &Session,
    module: &mut melior::ir::Module,
    options: &Options,
    features: &str,
    libdevice: &str,
) -> Result<Vec<u8>, Failure> {
    let stage = "gpu-module-to-binary";
    // The same checks as the llc route: one gpu.module at most, some code.
    session
        .device_module(module)
        .map_err(|()| Failure::from_session("extracting the device code", session))?;
    session
        .wrap_in_gpu_module(module, "spmd_device")
        .map_err(|()| Failure::from_session(stage, session))?;
    let link = if libdevice.is_empty() {
        String::new()
    } else {
        format!(" l={libdevice}")
    };
    let pipeline = format!(
        "builtin.module(nvvm-attach-target{{chip={} features={features}{link}}},\
         gpu-module-to-binary{{format=isa}})",
        options.mcpu
    );
    session
        .run_pipeline(module, &pipeline)
        .map_err(|()| Failure::from_session(stage, session))?;
    session
        .binary_assembly(module)
        .map_err(|()| Failure::from_session(stage, session))
}

/// The PTX ISA version for clang and the backend: `--ptx`, else the
/// backend's default for `--mcpu`, at least 6.2 (activemask).
fn ptx_version(options: &Options) -> Result<u32, Failure> {
    if let Some(ptx) = options.ptx {
        return Ok(ptx);
    }
    let default = mlir::default_ptx_version(&options.mcpu).ok_or_else(|| {
        Failure::new(
            "choosing the PTX version",
            format!("the NVPTX backend does not know --mcpu {}", options.mcpu),
        )
    })?;
    Ok(default.max(62))
}

fn read_input(options: &Options) -> Result<Vec<u8>, String> {
    match &options.input {
        Some(path) => std::fs::read(path)
            .map_err(|error| format!("cannot read '{}': {error}", path.display())),
        None => {
            let mut buffer = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buffer)
                .map_err(|error| format!("cannot read stdin: {error}"))?;
            Ok(buffer)
        }
    }
}

/// Warnings of a stage that succeeded go to stderr at once.
fn print_warnings(session: &Session) {
    for line in session.take_diagnostics() {
        eprintln!("{line}");
    }
}

fn write_output(options: &Options, output: &[u8]) -> Result<(), Failure> {
    let stage = "writing the output";
    match &options.output {
        Some(path) if path != Path::new("-") => std::fs::write(path, output).map_err(|error| {
            Failure::new(stage, format!("cannot write '{}': {error}", path.display()))
        }),
        _ => std::io::stdout()
            .write_all(output)
            .map_err(|error| Failure::new(stage, format!("cannot write stdout: {error}"))),
    }
}
