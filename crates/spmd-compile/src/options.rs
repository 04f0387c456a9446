//! The command line of `spmd-compile` (see [`USAGE`]).

use std::path::PathBuf;

/// `--help`.
pub const USAGE: &str = "\
spmd-compile: CUDA, LLVM IR or MLIR kernels to PTX (or AMDGPU code) through spmd's passes

  spmd-compile [options] FILE          (FILE: .cu, .ll, .bc or .mlir; - reads stdin)

The stages, each a possible stop (--emit):
  clang    CUDA only: clang-22, device side, against NVIDIA's CUDA headers
           and libdevice (--cuda-path), -O2: LLVM IR
  import   LLVM IR (from clang, or a .ll/.bc input) into MLIR's LLVM dialect
  wave     spmd-reconverge and spmd-predicate: the thread-level kernels become
           wave-level (exec masks), divergent branches reconverged
  nvvm     spmd-lower-to-nvvm and the upstream conversions: LLVM + NVVM dialects
           (rocdl with --target amdgcn: spmd-lower-to-rocdl, convert-gpu-to-rocdl)
  llvm     the device code as LLVM IR (--via llc)
  ptx      PTX from LLVM's NVPTX backend (default for --target nvptx); asm is
           the same, and AMDGPU assembly with --target amdgcn
  obj      --target amdgcn: the AMDGPU code object (ELF) from LLVM's backend
MLIR input is a gpu.module of gpu.func kernels or a module of llvm.func
kernels (what the import makes of CUDA); it starts at the wave stage.

Options:
  --emit STAGE         stop after STAGE (see above; default ptx, or asm for amdgcn)
  --target nvptx|amdgcn
                       NVIDIA (default) or AMD GPUs; amdgcn takes MLIR
                       (gpu.func kernels, or llvm.func amdgpu_kernel ones)
                       or LLVM IR, writes exec-mask code where lanes must
                       run together and emits AMDGPU assembly or objects
  -o FILE              write the result to FILE (default: stdout)
  -x cuda|llvm|mlir    the input's language (default: from FILE's extension;
                       mlir for stdin)
  --mcpu CHIP          target GPU: sm_30 or newer (default sm_90); with
                       --target amdgcn an AMDGPU chip (default gfx90a;
                       gfx942, gfx1100, ...)
  --ptx NN             PTX ISA version as LLVM spells it (78 for 7.8), at least
                       62; default: the backend's for --mcpu, at least 62
                       (6.2 has activemask, which the lowering reads)
  --via llc|isa        how the LLVM dialect becomes PTX: llc (default), the
                       NVPTX backend on the translated module; isa, MLIR's
                       nvvm-attach-target and gpu-module-to-binary{format=isa}
  --wave-size 32|64    lanes per wave (default 32; amdgcn: 64 on gfx9 chips,
                       32 on gfx10 and newer)
  --lane-branches true|false
                       keep divergent branches over code that needs no
                       converged lanes as per-lane branches, which the GPU
                       reconverges by itself (nvptx) or the backend lowers
                       with its own exec-mask code (amdgcn); default true;
                       false predicates every divergent branch with exec
                       masks
  --shared-work reconverge|lanes|auto
                       with lane branches, a divergent branch whose two sides
                       share work before they meet: reconverge it with a
                       Flow block (reconverge, the nvptx default), or keep it
                       a per-lane branch for the backend's own structurizer
                       (lanes, amdgcn only: spmd.lane_shared_work); auto
                       (the amdgcn default) compiles each function both ways
                       and keeps the one with fewer instructions
  --wave-level         the MLIR input is already wave-level (no wave stage)
  --reference          no spmd passes, the upstream route from the same input:
                       for CUDA clang's own PTX (or, with --emit clang, its
                       LLVM IR); for MLIR thread-level kernels MLIR's own
                       conversion (convert-gpu-to-nvvm or -rocdl) and the
                       backend; for LLVM IR the backend on the imported IR
  -O N, -ON            clang's optimisation level, 0..3 (default 2)
  -I DIR, -D NAME[=V]  passed to clang
  --clang-arg ARG      any other clang argument (repeatable)
  --cuda-path DIR      the CUDA root for clang and libdevice (default:
                       $SPMD_CUDA_PATH, else the .venv/cuda that
                       scripts/setup.sh lays out)
  --clang PATH         clang-22 (default: $CLANG, else /usr/lib/llvm-22/bin/clang)
  -h, --help           this text
";

/// Where the compilation stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Emit {
    Clang,
    Import,
    Wave,
    /// The LLVM and NVVM (or ROCDL) dialects.
    Nvvm,
    Llvm,
    /// Target assembly: PTX, or AMDGPU assembly.
    Ptx,
    /// An object file (AMDGPU).
    Obj,
}

impl Emit {
    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "clang" => Self::Clang,
            "import" => Self::Import,
            "wave" => Self::Wave,
            "nvvm" | "rocdl" => Self::Nvvm,
            "llvm" => Self::Llvm,
            "ptx" | "asm" => Self::Ptx,
            "obj" => Self::Obj,
            _ => return None,
        })
    }
}

/// `--shared-work`: what becomes of a divergent branch whose sides share
/// work, when it could otherwise stay a per-lane branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharedWork {
    /// A Flow block runs the shared work once for both sides.
    Reconverge,
    /// A per-lane branch (`spmd.lane_shared_work` on every function): the
    /// backend's structurizer runs the shared work once.
    Lanes,
    /// Per function, whichever of the two gives fewer instructions.
    Auto,
}

/// The language of the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Cuda,
    LlvmIr,
    Mlir,
}

impl Language {
    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "cuda" | "cu" => Self::Cuda,
            "llvm" | "ll" | "bc" => Self::LlvmIr,
            "mlir" => Self::Mlir,
            _ => return None,
        })
    }
}

/// The GPU the code is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Nvptx,
    Amdgcn,
}

impl Target {
    /// The LLVM target triple.
    pub fn triple(self) -> &'static str {
        match self {
            Self::Nvptx => "nvptx64-nvidia-cuda",
            Self::Amdgcn => "amdgcn-amd-amdhsa",
        }
    }
}

/// How the LLVM dialect becomes PTX.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// The NVPTX backend on the translated module (as `llc` would).
    Llc,
    /// MLIR's `gpu-module-to-binary{format=isa}`.
    Isa,
}

/// A parsed command line.
#[derive(Clone, Debug)]
pub struct Options {
    /// The input file; `None` for stdin.
    pub input: Option<PathBuf>,
    pub language: Language,
    pub emit: Emit,
    pub output: Option<PathBuf>,
    pub target: Target,
    /// `sm_NN` or `gfxNNN` as given.
    pub mcpu: String,
    /// `--ptx`, if given.
    pub ptx: Option<u32>,
    pub via: Via,
    pub wave_size: u32,
    pub lane_branches: bool,
    pub shared_work: SharedWork,
    pub wave_level: bool,
    pub reference: bool,
    pub opt_level: u32,
    pub clang_args: Vec<String>,
    pub cuda_path: Option<PathBuf>,
    pub clang: Option<PathBuf>,
}

impl Options {
    /// The backend's subtarget features beyond the chip's own: the PTX
    /// version on NVPTX, waves of 64 on an RDNA chip.
    pub fn features(&self, ptx: u32) -> String {
        match self.target {
            Target::Nvptx => format!("+ptx{ptx}"),
            Target::Amdgcn => {
                let native = amdgpu_wave_size(&self.mcpu).unwrap_or(64);
                if self.wave_size == 64 && native == 32 {
                    "+wavefrontsize64".into()
                } else {
                    String::new()
                }
            }
        }
    }
}

/// What the command line asks for.
pub enum Command {
    Help,
    Compile(Options),
}

/// Parses the arguments after the program name.
pub fn parse(arguments: &[String]) -> Result<Command, String> {
    let Some(raw) = read_arguments(arguments)? else {
        return Ok(Command::Help);
    };
    let input = raw.input.ok_or("no input file (see --help)")?;
    let language = language_of(raw.language, &input)?;
    let target = raw.target;
    let mcpu = raw.mcpu.unwrap_or_else(|| match target {
        Target::Nvptx => "sm_90".into(),
        Target::Amdgcn => "gfx90a".into(),
    });
    let wave_size = match target {
        Target::Nvptx => {
            parse_mcpu(&mcpu)?;
            raw.wave_size.unwrap_or(32)
        }
        Target::Amdgcn => amdgpu_wave_size_of(&mcpu, raw.wave_size, language, raw.via)?,
    };
    let options = Options {
        input,
        language,
        emit: raw.emit,
        output: raw.output,
        target,
        mcpu,
        ptx: raw.ptx,
        via: raw.via,
        wave_size,
        lane_branches: raw.lane_branches.unwrap_or(true),
        shared_work: raw.shared_work.unwrap_or(match target {
            Target::Nvptx => SharedWork::Reconverge,
            Target::Amdgcn => SharedWork::Auto,
        }),
        wave_level: raw.wave_level,
        reference: raw.reference,
        opt_level: raw.opt_level,
        clang_args: raw.clang_args,
        cuda_path: raw.cuda_path,
        clang: raw.clang,
    };
    check_combination(&options)?;
    Ok(Command::Compile(options))
}

/// The command line as given, before defaults that depend on other options.
struct RawOptions {
    input: Option<Option<PathBuf>>,
    language: Option<Language>,
    emit: Emit,
    output: Option<PathBuf>,
    mcpu: Option<String>,
    target: Target,
    ptx: Option<u32>,
    via: Via,
    wave_size: Option<u32>,
    lane_branches: Option<bool>,
    shared_work: Option<SharedWork>,
    wave_level: bool,
    reference: bool,
    opt_level: u32,
    clang_args: Vec<String>,
    cuda_path: Option<PathBuf>,
    clang: Option<PathBuf>,
}

/// Reads every argument; `None` for `--help`.
fn read_arguments(arguments: &[String]) -> Result<Option<RawOptions>, String> {
    let mut raw = RawOptions {
        input: None,
        language: None,
        emit: Emit::Ptx,
        output: None,
        mcpu: None,
        target: Target::Nvptx,
        ptx: None,
        via: Via::Llc,
        wave_size: None,
        lane_branches: None,
        shared_work: None,
        wave_level: false,
        reference: false,
        opt_level: 2,
        clang_args: Vec::new(),
        cuda_path: None,
        clang: None,
    };
    let mut rest = arguments.iter();
    while let Some(argument) = rest.next() {
        let mut value = |name: &str| {
            rest.next()
                .cloned()
                .ok_or_else(|| format!("option '{name}' needs a value"))
        };
        if matches!(argument.as_str(), "-h" | "--help") {
            return Ok(None);
        }
        read_argument(&mut raw, argument, &mut value)?;
    }
    Ok(Some(raw))
}

/// One of `choices` by its spelling, or the message naming them.
fn choice<T: Copy>(
    name: &str,
    text: &str,
    choices: &[(&str, T)],
    expected: &str,
) -> Result<T, String> {
    choices
        .iter()
        .find(|(spelling, _)| *spelling == text)
        .map(|&(_, value)| value)
        .ok_or_else(|| format!("{name} must be {expected}, not '{text}'"))
}

/// Applies one argument (`value` reads the next one, for options that take
/// a value).
fn read_argument(
    raw: &mut RawOptions,
    argument: &str,
    value: &mut dyn FnMut(&str) -> Result<String, String>,
) -> Result<(), String> {
    match argument {
        "--emit" => {
            let text = value("--emit")?;
            raw.emit = Emit::parse(&text).ok_or_else(|| {
                format!("--emit must be clang, import, wave, nvvm, llvm or ptx, not '{text}'")
            })?;
        }
        "-o" => raw.output = Some(PathBuf::from(value("-o")?)),
        "-x" => {
            let text = value("-x")?;
            raw.language = Some(
                Language::parse(&text)
                    .ok_or_else(|| format!("-x must be cuda, llvm or mlir, not '{text}'"))?,
            );
        }
        "--mcpu" => raw.mcpu = Some(value("--mcpu")?),
        "--target" | "--ptx" | "--via" | "--wave-size" | "--lane-branches" | "--shared-work" => {
            read_target_argument(raw, argument, value)?
        }
        "--wave-level" => raw.wave_level = true,
        "--reference" => raw.reference = true,
        "-O" => raw.opt_level = parse_opt_level(&value("-O")?)?,
        "-I" => raw.clang_args.push(format!("-I{}", value("-I")?)),
        "-D" => raw.clang_args.push(format!("-D{}", value("-D")?)),
        "--clang-arg" => raw.clang_args.push(value("--clang-arg")?),
        "--cuda-path" => raw.cuda_path = Some(PathBuf::from(value("--cuda-path")?)),
        "--clang" => raw.clang = Some(PathBuf::from(value("--clang")?)),
        "-" => set_input(&mut raw.input, None)?,
        other if other.starts_with("-O") => raw.opt_level = parse_opt_level(&other[2..])?,
        other if other.starts_with("-I") || other.starts_with("-D") => {
            raw.clang_args.push(other.to_string())
        }
        other if other.starts_with('-') => {
            return Err(format!("unknown option '{other}' (see --help)"))
        }
        other => set_input(&mut raw.input, Some(PathBuf::from(other)))?,
    }
    Ok(())
}

/// The options that choose the target and how spmd lowers for it.
fn read_target_argument(
    raw: &mut RawOptions,
    argument: &str,
    value: &mut dyn FnMut(&str) -> Result<String, String>,
) -> Result<(), String> {
    let text = value(argument)?;
    match argument {
        "--target" => {
            let targets = [
                ("nvptx", Target::Nvptx),
                ("nvptx64", Target::Nvptx),
                ("amdgcn", Target::Amdgcn),
                ("amdgpu", Target::Amdgcn),
            ];
            raw.target = choice(argument, &text, &targets, "nvptx or amdgcn")?;
        }
        "--ptx" => raw.ptx = Some(parse_ptx_version(&text)?),
        "--via" => {
            let vias = [("llc", Via::Llc), ("isa", Via::Isa)];
            raw.via = choice(argument, &text, &vias, "llc or isa")?;
        }
        "--wave-size" => {
            let sizes = [("32", 32), ("64", 64)];
            raw.wave_size = Some(choice(argument, &text, &sizes, "32 or 64")?);
        }
        "--lane-branches" => {
            let flags = [("true", true), ("false", false)];
            raw.lane_branches = Some(choice(argument, &text, &flags, "true or false")?);
        }
        _ => {
            let policies = [
                ("reconverge", SharedWork::Reconverge),
                ("lanes", SharedWork::Lanes),
                ("auto", SharedWork::Auto),
            ];
            let expected = "reconverge, lanes or auto";
            raw.shared_work = Some(choice(argument, &text, &policies, expected)?);
        }
    }
    Ok(())
}

/// `--ptx`: a PTX ISA version as LLVM spells it, 62 (6.2) or more.
fn parse_ptx_version(text: &str) -> Result<u32, String> {
    text.parse::<u32>()
        .ok()
        .filter(|&version| version >= 62)
        .ok_or_else(|| {
            format!(
                "--ptx must be a PTX ISA version of 62 (6.2) or more, \
                 as LLVM spells it, not '{text}'"
            )
        })
}

/// The input language: `-x`, else the file's extension (MLIR for stdin).
fn language_of(given: Option<Language>, input: &Option<PathBuf>) -> Result<Language, String> {
    match (given, input) {
        (Some(language), _) => Ok(language),
        (None, None) => Ok(Language::Mlir),
        (None, Some(path)) => {
            let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            Language::parse(extension).ok_or_else(|| {
                format!(
                    "cannot tell the language of '{}' from its extension \
                     (.cu, .ll, .bc or .mlir); use -x",
                    path.display()
                )
            })
        }
    }
}

/// The wave size for `--target amdgcn` on `mcpu` (its native one unless
/// given), after the checks that only concern that target.
fn amdgpu_wave_size_of(
    mcpu: &str,
    given: Option<u32>,
    language: Language,
    via: Via,
) -> Result<u32, String> {
    let native = amdgpu_wave_size(mcpu)?;
    let wave_size = given.unwrap_or(native);
    if native == 64 && wave_size == 32 {
        return Err(format!("{mcpu} runs waves of 64 lanes only"));
    }
    if language == Language::Cuda {
        return Err("--target amdgcn takes MLIR or LLVM IR input (CUDA is for nvptx)".into());
    }
    if via == Via::Isa {
        return Err("--target amdgcn has no --via isa".into());
    }
    Ok(wave_size)
}

/// Refuses the combinations of options that mean nothing.
fn check_combination(options: &Options) -> Result<(), String> {
    let (emit, language) = (options.emit, options.language);
    if options.target == Target::Nvptx && emit == Emit::Obj {
        return Err("--emit obj is for --target amdgcn (run ptxas on the PTX)".into());
    }
    if emit == Emit::Clang && language != Language::Cuda {
        return Err("--emit clang needs CUDA input".into());
    }
    if options.reference && language == Language::Cuda && !matches!(emit, Emit::Clang | Emit::Ptx) {
        return Err("--reference gives clang's PTX (or, with --emit clang, its LLVM IR)".into());
    }
    if options.reference && emit == Emit::Wave {
        return Err("--reference runs no spmd pass: there is no wave stage".into());
    }
    if emit == Emit::Llvm && options.via == Via::Isa {
        return Err("--emit llvm needs --via llc".into());
    }
    if options.target == Target::Nvptx && options.shared_work != SharedWork::Reconverge {
        return Err(
            "--shared-work lanes and auto are for --target amdgcn, whose backend \
                    structurizes divergent regions itself"
                .into(),
        );
    }
    if options.wave_level && language != Language::Mlir {
        return Err("--wave-level needs MLIR input".into());
    }
    if emit == Emit::Import && language == Language::Mlir {
        return Err("--emit import needs CUDA or LLVM IR input".into());
    }
    Ok(())
}

fn set_input(slot: &mut Option<Option<PathBuf>>, input: Option<PathBuf>) -> Result<(), String> {
    if slot.is_some() {
        return Err("one input file only".into());
    }
    *slot = Some(input);
    Ok(())
}

fn parse_opt_level(text: &str) -> Result<u32, String> {
    text.parse::<u32>()
        .ok()
        .filter(|&level| level <= 3)
        .ok_or_else(|| format!("-O must be 0, 1, 2 or 3, not '{text}'"))
}

/// The native wave size of the AMDGPU chip `mcpu` (`gfx` and a
/// generation): 64 up to gfx9 (GCN, CDNA), 32 from gfx10 on (RDNA).
fn amdgpu_wave_size(mcpu: &str) -> Result<u32, String> {
    let generation = mcpu
        .strip_prefix("gfx")
        .filter(|rest| rest.len() >= 3 && rest.bytes().all(|b| b.is_ascii_alphanumeric()))
        .and_then(|rest| rest[..rest.len() - 2].parse::<u32>().ok())
        .ok_or_else(|| format!("--mcpu must look like gfx90a or gfx1100, not '{mcpu}'"))?;
    Ok(if generation >= 10 { 32 } else { 64 })
}

/// `sm_NN` or `sm_NNa` with NN >= 30 (the lowering votes with vote.sync).
fn parse_mcpu(mcpu: &str) -> Result<u32, String> {
    let digits = mcpu
        .strip_prefix("sm_")
        .map(|rest| rest.strip_suffix('a').unwrap_or(rest))
        .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| format!("--mcpu must look like sm_70 or sm_90a, not '{mcpu}'"))?;
    let sm: u32 = digits
        .parse()
        .map_err(|_| format!("--mcpu '{mcpu}' is out of range"))?;
    if sm < 30 {
        return Err(format!(
            "--mcpu {mcpu} is too old: the exec-mask lowering needs vote.sync \
             (PTX 6.0, sm_30 or newer)"
        ));
    }
    Ok(sm)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(arguments: &[&str]) -> Result<Options, String> {
        let arguments: Vec<String> = arguments.iter().map(|a| a.to_string()).collect();
        match parse(&arguments)? {
            Command::Compile(options) => Ok(options),
            Command::Help => Err("help".into()),
        }
    }

    #[test]
    fn language_comes_from_the_extension_or_x() {
        assert_eq!(options(&["k.cu"]).unwrap().language, Language::Cuda);
        assert_eq!(options(&["k.bc"]).unwrap().language, Language::LlvmIr);
        assert_eq!(options(&["-"]).unwrap().language, Language::Mlir);
        assert_eq!(
            options(&["-x", "cuda", "-"]).unwrap().language,
            Language::Cuda
        );
        assert!(options(&["k.txt"]).unwrap_err().contains("use -x"));
    }

    #[test]
    fn script_options_are_accepted() {
        let parsed = options(&[
            "--via",
            "isa",
            "--mcpu",
            "sm_70",
            "--ptx",
            "63",
            "--wave-size",
            "64",
            "-O3",
            "-I",
            "inc",
            "-DX=1",
            "--lane-branches",
            "false",
            "-o",
            "out.ptx",
            "k.cu",
        ])
        .unwrap();
        assert_eq!(
            (parsed.mcpu.as_str(), parsed.ptx, parsed.wave_size),
            ("sm_70", Some(63), 64)
        );
        assert_eq!(
            (parsed.via, parsed.opt_level, parsed.lane_branches),
            (Via::Isa, 3, false)
        );
        assert_eq!(parsed.clang_args, ["-Iinc", "-DX=1"]);
    }

    #[test]
    fn amdgpu_chips_give_their_wave_size() {
        for (chip, wave) in [
            ("gfx90a", 64),
            ("gfx942", 64),
            ("gfx908", 64),
            ("gfx1100", 32),
            ("gfx1030", 32),
        ] {
            let parsed = options(&["--target", "amdgcn", "--mcpu", chip, "k.mlir"]).unwrap();
            assert_eq!(parsed.wave_size, wave, "{chip}");
            assert!(parsed.lane_branches);
        }
        let forced = options(&[
            "--target",
            "amdgcn",
            "--mcpu",
            "gfx1100",
            "--wave-size",
            "64",
            "k.mlir",
        ]);
        assert_eq!(forced.unwrap().wave_size, 64);
        let masks = options(&["--target", "amdgcn", "--lane-branches", "false", "k.mlir"]);
        assert!(!masks.unwrap().lane_branches);
    }

    #[test]
    fn shared_work_defaults_to_auto_on_amdgcn_only() {
        let amdgcn = options(&["--target", "amdgcn", "k.mlir"]).unwrap();
        assert_eq!(amdgcn.shared_work, SharedWork::Auto);
        assert_eq!(
            options(&["k.mlir"]).unwrap().shared_work,
            SharedWork::Reconverge
        );
        let lanes = options(&["--target", "amdgcn", "--shared-work", "lanes", "k.mlir"]);
        assert_eq!(lanes.unwrap().shared_work, SharedWork::Lanes);
        let nvptx = options(&["--shared-work", "auto", "k.mlir"]).unwrap_err();
        assert!(nvptx.contains("--target amdgcn"), "{nvptx}");
        let bad = options(&["--target", "amdgcn", "--shared-work", "x", "k.mlir"]).unwrap_err();
        assert!(bad.contains("reconverge, lanes or auto"), "{bad}");
    }

    #[test]
    fn bad_options_are_refused_with_a_reason() {
        for (arguments, reason) in [
            (&["--mcpu", "sm_20", "k.cu"][..], "too old"),
            (&["--mcpu", "gfx90a", "k.cu"], "sm_70"),
            (&["--ptx", "60", "k.cu"], "62"),
            (&["--emit", "clang", "k.mlir"], "CUDA"),
            (&["--emit", "llvm", "--via", "isa", "k.mlir"], "--via llc"),
            (&["--reference", "--emit", "wave", "k.ll"], "no wave stage"),
            (&["--target", "amdgcn", "k.cu"], "MLIR or LLVM IR"),
            (
                &["--target", "amdgcn", "--mcpu", "sm_90", "k.mlir"],
                "gfx90a",
            ),
            (
                &[
                    "--target",
                    "amdgcn",
                    "--mcpu",
                    "gfx90a",
                    "--wave-size",
                    "32",
                    "k.mlir",
                ],
                "64 lanes",
            ),
            (&["--emit", "obj", "k.mlir"], "amdgcn"),
            (&["a.cu", "b.cu"], "one input"),
            (&["--bogus", "k.cu"], "unknown option"),
            (&["-O"], "needs a value"),
            (&[], "no input"),
        ] {
            let error = options(arguments).unwrap_err();
            assert!(error.contains(reason), "{arguments:?}: {error}");
        }
    }
}
