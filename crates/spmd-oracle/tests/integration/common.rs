//! Shared fixtures: a context with every upstream dialect plus spmd.

use melior::{
    ir::{
        block::BlockLike,
        operation::{OperationLike, OperationMutLike, OperationRefMut},
        Attribute, Module, RegionLike,
    },
    Context,
};

/// A context with every upstream dialect and the spmd dialect loaded.
pub fn context() -> Context {
    spmd::dialect::context_with_all_dialects()
}

/// Puts the unit attribute `name` on every function with a body at the top
/// of `module` or of a `gpu.module` in it.
pub fn mark_functions(context: &Context, module: &Module, name: &str) {
    let is_function = |op: &OperationRefMut| {
        let op_name = op.name();
        let op_name = op_name
            .as_string_ref()
            .as_str()
            .unwrap_or_default()
            .to_string();
        matches!(op_name.as_str(), "gpu.func" | "llvm.func" | "func.func")
            && op.region(0).is_ok_and(|body| body.first_block().is_some())
    };
    let mut next = module.body().first_operation_mut();
    while let Some(mut op) = next {
        next = op.next_in_block_mut();
        if is_function(&op) {
            op.set_discardable_attribute(name, Attribute::unit(context));
            continue;
        }
        let Some(inner) = op.region(0).ok().and_then(|body| body.first_block()) else {
            continue;
        };
        let mut nested = inner.first_operation_mut();
        while let Some(mut function) = nested {
            nested = function.next_in_block_mut();
            if is_function(&function) {
                function.set_discardable_attribute(name, Attribute::unit(context));
            }
        }
    }
}

/// Parses and verifies `source`, panicking with the text on failure.
pub fn parse<'c>(context: &'c Context, source: &str) -> Module<'c> {
    let module =
        Module::parse(context, source).unwrap_or_else(|| panic!("failed to parse:\n{source}"));
    assert!(module.as_operation().verify(), "invalid module:\n{source}");
    module
}

/// Runs the textual pass pipeline `pipeline` on `module` (registering the
/// spmd passes first); `Err` carries the diagnostics it emitted.
pub fn try_pipeline(
    context: &Context,
    module: &mut Module,
    pipeline: &str,
) -> Result<(), Vec<String>> {
    spmd::register_all_passes();
    let messages = std::rc::Rc::new(std::cell::RefCell::new(Vec::<String>::new()));
    let sink = messages.clone();
    let handler = context.attach_diagnostic_handler(move |d| {
        sink.borrow_mut().push(d.to_string());
        true
    });
    let manager = melior::pass::PassManager::new(context);
    melior::utility::parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline)
        .expect("valid pipeline");
    let result = manager.run(module);
    context.detach_diagnostic_handler(handler);
    let messages = messages.borrow().clone();
    result.map_err(|_| messages)
}

/// Like [`try_pipeline`]; panics with the diagnostics and the input.
pub fn run_pipeline(context: &Context, module: &mut Module, pipeline: &str) {
    let before = module.as_operation().to_string();
    if let Err(messages) = try_pipeline(context, module, pipeline) {
        panic!("pipeline {pipeline} failed: {messages:?}\non\n{before}");
    }
}

/// Threads per differential run of a random kernel.
pub const KERNEL_THREADS: u32 = 64;

/// Runs a random kernel's `original` and `transformed` modules on
/// [`KERNEL_THREADS`] threads for `%n` in {0, 9} with our SIMT executor and
/// panics (naming `what`, `%n` and both texts) on the first difference in
/// results or memory effects.
pub fn assert_kernels_agree(
    original: &Module,
    transformed: &Module,
    kernel: &spmd_oracle::RandomKernel,
    fuel: u64,
    what: &str,
) {
    use spmd_oracle::{compare_runs, BufferSpec, MemRefId, RandomKernel, RunInputs, ThreadId};
    for n in [0, 9] {
        let args =
            move |t: ThreadId, buffers: &[MemRefId]| RandomKernel::arguments(buffers[0], n, t.x);
        let inputs = RunInputs {
            num_threads: KERNEL_THREADS,
            buffers: vec![BufferSpec::zeroed_i32(kernel.out_len(KERNEL_THREADS))],
            args: &args,
            fuel,
        };
        if let Err(mismatch) = compare_runs(original, transformed, "kernel", &inputs) {
            panic!(
                "{what} n={n}: {mismatch}\noriginal:\n{}\ntransformed:\n{}",
                kernel.text,
                transformed.as_operation()
            );
        }
    }
}

/// A random kernel rendered for both front doors of the NVVM pipeline.
pub trait FrontDoors {
    /// The `gpu.func` rendering.
    fn gpu_text(&self) -> &str;
    /// The LLVM-dialect rendering (as clang's CUDA output imports).
    fn llvm_text(&self) -> &str;
}

impl FrontDoors for spmd_oracle::RandomKernel {
    fn gpu_text(&self) -> &str {
        &self.gpu_text
    }
    fn llvm_text(&self) -> &str {
        &self.llvm_text
    }
}

impl FrontDoors for spmd_oracle::RandomCollectiveKernel {
    fn gpu_text(&self) -> &str {
        &self.gpu_text
    }
    fn llvm_text(&self) -> &str {
        &self.llvm_text
    }
}

/// The two front doors of `spmd-gpu-to-nvvm`: a `gpu.func` kernel and an
/// `llvm.func ptx_kernelcc` one, both with the arguments `(%out, %n, %ret)`
/// of the random kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Gpu,
    Llvm,
}

impl Form {
    /// The kernel's text for this front door.
    pub fn text(self, kernel: &impl FrontDoors) -> &str {
        match self {
            Self::Gpu => kernel.gpu_text(),
            Self::Llvm => kernel.llvm_text(),
        }
    }

    /// The kernel's arguments in `memory`; `lowered`: for the output of the
    /// pipeline (memrefs become descriptors).
    pub fn arguments(
        self,
        memory: &spmd_oracle::Memory,
        out: spmd_oracle::MemRefId,
        n: i32,
        ret: spmd_oracle::MemRefId,
        lowered: bool,
    ) -> Vec<spmd_oracle::Value> {
        use spmd_oracle::RandomKernel;
        match self {
            Self::Gpu if lowered => {
                memory.expand_memrefs(&RandomKernel::gpu_arguments(out, n, ret))
            }
            Self::Gpu => RandomKernel::gpu_arguments(out, n, ret),
            Self::Llvm => RandomKernel::llvm_arguments(
                memory.pointer_to(out).expect("allocated"),
                n,
                memory.pointer_to(ret).expect("allocated"),
            ),
        }
    }
}

/// The named pipeline of the NVVM front doors.
pub const NVVM_PIPELINE: &str = "builtin.module(spmd-gpu-to-nvvm)";

/// Parses `text` and runs [`NVVM_PIPELINE`] on it; panics if the output
/// does not verify.
pub fn lower_to_nvvm<'c>(context: &'c Context, text: &str) -> Module<'c> {
    lower_to_nvvm_with(context, text, true)
}

/// [`lower_to_nvvm`] with the pipeline's `lane-branches` option: `false`
/// predicates every divergent branch with exec masks (the AMDGPU model).
pub fn lower_to_nvvm_with<'c>(context: &'c Context, text: &str, lane_branches: bool) -> Module<'c> {
    // The pipeline's upstream conversions are looked up by name.
    melior::utility::register_all_passes();
    let mut lowered = parse(context, text);
    let pipeline = if lane_branches {
        NVVM_PIPELINE.to_string()
    } else {
        "builtin.module(spmd-gpu-to-nvvm{lane-branches=false})".to_string()
    };
    run_pipeline(context, &mut lowered, &pipeline);
    assert!(lowered.as_operation().verify(), "invalid NVVM output");
    lowered
}

/// An AMD wave size and a chip of that wave size, for `spmd-gpu-to-rocdl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wave {
    /// Lanes per wave: 64 (GCN, CDNA) or 32 (RDNA).
    pub size: u32,
    /// The chip (`chipset` of `convert-gpu-to-rocdl`).
    pub chipset: &'static str,
}

impl Wave {
    /// Waves of 64 lanes on gfx90a (MI200).
    pub const W64: Self = Self {
        size: 64,
        chipset: "gfx90a",
    };
    /// Waves of 32 lanes on gfx1100 (RDNA3).
    pub const W32: Self = Self {
        size: 32,
        chipset: "gfx1100",
    };

    /// The named pipeline of the AMDGPU front doors for this wave, with
    /// lane branches (its default) or with every divergent branch as
    /// exec-mask code.
    pub fn pipeline(self, lane_branches: bool) -> String {
        format!(
            "builtin.module(spmd-gpu-to-rocdl{{wave-size={} chipset={} lane-branches={lane_branches}}})",
            self.size, self.chipset
        )
    }
}

/// The AMDGPU route of a kernel: lane branches or not, and with them
/// whether work shared by both sides of a branch may stay under it
/// ([`spmd::LANE_SHARED_WORK_ATTR`] on every function).
#[derive(Clone, Copy, Debug)]
pub struct RocdlRoute {
    pub lane_branches: bool,
    pub lane_shared_work: bool,
}

/// Parses `text` and runs [`Wave::pipeline`] on it; panics if the output
/// does not verify.
pub fn lower_to_rocdl<'c>(
    context: &'c Context,
    text: &str,
    wave: Wave,
    route: RocdlRoute,
) -> Module<'c> {
    melior::utility::register_all_passes();
    let mut lowered = parse(context, text);
    if route.lane_shared_work {
        mark_functions(context, &lowered, spmd::LANE_SHARED_WORK_ATTR);
    }
    run_pipeline(context, &mut lowered, &wave.pipeline(route.lane_branches));
    assert!(lowered.as_operation().verify(), "invalid ROCDL output");
    lowered
}

/// `scripts/cuda-to-ptx.sh --emit import` of the CUDA file `path` (clang
/// against NVIDIA's headers and libdevice, then the LLVM IR import, by the
/// spmd-compile driver); `None`, with a message, when this machine lacks
/// clang-22, the CUDA root or the driver (`cargo test -p spmd-oracle` alone
/// does not build it). Any other failure panics with the driver's message.
pub fn import_cuda(path: &str) -> Option<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let output = std::process::Command::new(format!("{root}/scripts/cuda-to-ptx.sh"))
        .args(["--emit", "import", path])
        .output()
        .expect("run scripts/cuda-to-ptx.sh");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let missing = [
        "cannot run clang",
        "no CUDA headers",
        "spmd-compile not found",
    ];
    if !output.status.success() && missing.iter().any(|reason| stderr.contains(reason)) {
        eprintln!("skipping {path}: {stderr}");
        return None;
    }
    assert!(
        output.status.success(),
        "cuda-to-ptx.sh --emit import {path}: {stderr}"
    );
    Some(String::from_utf8(output.stdout).expect("UTF-8 MLIR"))
}

/// A deterministic generator (SplitMix64) for test inputs.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound`.
    pub fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }

    /// Uniform in `[low, high)`.
    pub fn uniform(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// One of `items`, uniformly.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// The first difference between a thread-level run (`expected`: its
/// memory and the `%out` and `%ret` buffers) and a lockstep run of the
/// lowered kernel: each thread's store sequence, then the final buffers
/// ([`spmd_oracle::compare_memories_after`]).
pub fn first_difference(
    threads: u32,
    expected: &(
        spmd_oracle::Memory,
        spmd_oracle::MemRefId,
        spmd_oracle::MemRefId,
    ),
    actual: &spmd_oracle::Memory,
) -> Result<(), String> {
    spmd_oracle::compare_memories_after(threads, &expected.0, actual).map_err(|m| m.to_string())
}
