//! [`reconverge_definition1`]: `--spmd-reconverge` and `--spmd-structurize`
//! on an arbitrary CFG rendered as a `func.func`.

use crate::{
    cfg_input::{FuzzCfg, MAX_MLIR_BLOCKS},
    mlir::{self, fresh_context, Message},
};
use arbitrary::{Arbitrary, Result, Unstructured};
use melior::ir::Module;
use spmd::{
    cfg_regions,
    graph::{BlockId, DominatorTree, Graph},
    is_marked_uniform,
    testing::{
        checks::{check_structured, first_marker_error, flow_shapes, StructuredInput},
        ir::is_function_exit,
    },
    RegionGraph, RegionUniformity, UniformityOptions,
};
use std::fmt::Write;

/// The sweep orderings of both transforms.
const ORDERINGS: [&str; 4] = ["df", "dfpd", "bf", "rpot"];

/// The comparison predicates a branch condition may use.
const PREDICATES: [&str; 6] = ["eq", "ne", "slt", "sle", "sgt", "ult"];

/// One input of [`reconverge_definition1`]: a function and the options of
/// both passes.
#[derive(Clone, Debug)]
pub struct ReconvergeCase {
    /// The function.
    pub function: Function,
    /// `ordering` of `--spmd-reconverge` (index into df, dfpd, bf, rpot).
    pub reconverge_ordering: usize,
    /// `selector-chain-length` of both passes.
    pub selector_chain_length: u32,
    /// `ordering` of `--spmd-structurize`.
    pub structurize_ordering: usize,
    /// 0: `skip-uniform-regions=false`; 1: skip, relaxed; 2: skip, strict.
    pub skip_uniform: u8,
}

/// Where the function comes from.
#[derive(Clone, Debug)]
pub enum Function {
    /// An arbitrary CFG rendered here, with per-block values.
    Graph(RenderedCfg),
    /// `spmd::testing::mlir_cfg::random_function_with_loops` with these
    /// parameters (a code-shaped CFG with back edges).
    Seeded {
        /// Its seed.
        seed: u64,
        /// Its number of blocks.
        blocks: usize,
        /// Divergent branches per mille.
        divergent_per_mille: u64,
        /// Extra back edges per mille of plain jumps.
        loop_per_mille: u64,
    },
}

/// An arbitrary CFG and what each block computes.
#[derive(Clone, Debug)]
pub struct RenderedCfg {
    /// The graph (entry 0; the function's entry block jumps to block 0).
    pub cfg: FuzzCfg,
    /// Per block: the value it computes and branches on.
    pub blocks: Vec<BlockBody>,
}

/// What one block of a [`RenderedCfg`] computes: `%vI = X + k`, where `X`
/// is chosen by `operand` among the divergent argument `%t`, the uniform
/// argument `%n`, the block's own argument and the values of its strict
/// dominators; a conditional branch compares `%vI` with `bound`.
#[derive(Clone, Debug, Arbitrary)]
pub struct BlockBody {
    /// The block takes an `i32` argument (every predecessor passes its
    /// own `%v`).
    pub has_argument: bool,
    /// Picks the operand `X` (modulo the number of visible values).
    pub operand: u8,
    /// The constant `k`.
    pub addend: i8,
    /// The constant a two-way branch compares with.
    pub bound: i8,
    /// The comparison (index into eq, ne, slt, sle, sgt, ult).
    pub predicate: u8,
}

impl<'a> Arbitrary<'a> for ReconvergeCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let function = if u.ratio(1u8, 5u8)? {
            Function::Seeded {
                seed: u.arbitrary()?,
                blocks: u.int_in_range(2..=MAX_MLIR_BLOCKS)?,
                divergent_per_mille: u.int_in_range(0..=1000)?,
                loop_per_mille: u.int_in_range(0..=500)?,
            }
        } else {
            let cfg = FuzzCfg::arbitrary_bounded(u, MAX_MLIR_BLOCKS)?;
            let blocks = (0..cfg.num_blocks())
                .map(|_| BlockBody::arbitrary(u))
                .collect::<Result<_>>()?;
            Function::Graph(RenderedCfg { cfg, blocks })
        };
        Ok(Self {
            function,
            reconverge_ordering: u.choose_index(ORDERINGS.len())?,
            selector_chain_length: u.int_in_range(0..=5)?,
            structurize_ordering: u.choose_index(ORDERINGS.len())?,
            skip_uniform: u.int_in_range(0..=2)?,
        })
    }
}

impl ReconvergeCase {
    /// The function's MLIR text.
    pub fn text(&self) -> String {
        match &self.function {
            Function::Graph(rendered) => rendered.text(),
            Function::Seeded {
                seed,
                blocks,
                divergent_per_mille,
                loop_per_mille,
            } => {
                spmd::testing::mlir_cfg::random_function_with_loops(
                    *seed,
                    *blocks,
                    *divergent_per_mille,
                    *loop_per_mille,
                )
                .0
            }
        }
    }

    /// The `--spmd-reconverge` pipeline.
    pub fn reconverge_pipeline(&self) -> String {
        format!(
            "builtin.module(spmd-reconverge{{ordering={} selector-chain-length={}}})",
            ORDERINGS[self.reconverge_ordering % ORDERINGS.len()],
            self.selector_chain_length
        )
    }

    /// The `--spmd-structurize` pipeline (`irreducible=fix`).
    pub fn structurize_pipeline(&self) -> String {
        let skip = match self.skip_uniform % 3 {
            0 => "skip-uniform-regions=false",
            1 => "skip-uniform-regions=true relaxed-uniform-regions=true",
            _ => "skip-uniform-regions=true relaxed-uniform-regions=false",
        };
        format!(
            "builtin.module(spmd-structurize{{irreducible=fix {skip} ordering={} selector-chain-length={}}})",
            ORDERINGS[self.structurize_ordering % ORDERINGS.len()],
            self.selector_chain_length
        )
    }
}

impl RenderedCfg {
    /// The function:
    ///
    /// ```text
    /// func.func @fuzz(%t: i32 {spmd.divergent}, %n: i32 {spmd.uniform}) -> i32 {
    ///   cf.br ^bb0[(%n : i32)]
    /// ^bbI[(%aI: i32)]:
    ///   %kI = arith.constant K : i32
    ///   %vI = arith.addi X, %kI : i32
    ///   return %vI : i32 | cf.br ^bbS[(%vI : i32)]
    ///   | %bI = arith.constant B : i32
    ///     %cI = arith.cmpi P, %vI, %bI : i32
    ///     cf.cond_br %cI, ^bbS[(%vI : i32)], ^bbS'[...]
    ///   | cf.switch %vI : i32, [default: ^bbS[...], 0: ^bbS'[...], ...]
    /// }
    /// ```
    ///
    /// A separate entry block, since block 0 may have predecessors.
    pub fn text(&self) -> String {
        let g = self.cfg.graph();
        let dom = DominatorTree::build(&g);
        let jump = |text: &mut String, target: BlockId, value: &str| {
            let _ = write!(text, "^bb{}", target.index());
            if self.blocks[target.index()].has_argument {
                let _ = write!(text, "({value} : i32)");
            }
        };
        let mut text = String::from(
            "func.func @fuzz(%t: i32 {spmd.divergent}, %n: i32 {spmd.uniform}) -> i32 {\n  cf.br ",
        );
        jump(&mut text, BlockId::new(0), "%n");
        text.push('\n');
        for (index, body) in self.blocks.iter().enumerate() {
            let block = BlockId::new(index);
            let _ = write!(text, "^bb{index}");
            if body.has_argument {
                let _ = write!(text, "(%a{index}: i32)");
            }
            text.push_str(":\n");
            let mut visible = vec!["%t".to_string(), "%n".to_string()];
            if body.has_argument {
                visible.push(format!("%a{index}"));
            }
            let mut up = dom.idom(block);
            while let Some(d) = up {
                visible.push(format!("%v{}", d.index()));
                up = dom.idom(d);
            }
            let operand = &visible[body.operand as usize % visible.len()];
            let _ = writeln!(text, "  %k{index} = arith.constant {} : i32", body.addend);
            let _ = writeln!(text, "  %v{index} = arith.addi {operand}, %k{index} : i32");
            let value = format!("%v{index}");
            match g.successors(block) {
                [] => {
                    let _ = writeln!(text, "  return {value} : i32");
                }
                [only] => {
                    text.push_str("  cf.br ");
                    jump(&mut text, *only, &value);
                    text.push('\n');
                }
                [a, b] => {
                    let predicate = PREDICATES[body.predicate as usize % PREDICATES.len()];
                    let _ = writeln!(text, "  %b{index} = arith.constant {} : i32", body.bound);
                    let _ = writeln!(
                        text,
                        "  %c{index} = arith.cmpi {predicate}, {value}, %b{index} : i32"
                    );
                    let _ = write!(text, "  cf.cond_br %c{index}, ");
                    jump(&mut text, *a, &value);
                    text.push_str(", ");
                    jump(&mut text, *b, &value);
                    text.push('\n');
                }
                [default, cases @ ..] => {
                    let _ = write!(text, "  cf.switch {value} : i32, [\n    default: ");
                    jump(&mut text, *default, &value);
                    for (case, target) in cases.iter().enumerate() {
                        let _ = write!(text, ",\n    {case}: ");
                        jump(&mut text, *target, &value);
                    }
                    text.push_str("\n  ]\n");
                }
            }
        }
        text.push_str("}\n");
        text
    }
}

/// Builds a function from `data` (an arbitrary CFG of at most
/// [`MAX_MLIR_BLOCKS`] blocks whose branches read a divergent or a uniform
/// argument, or a seeded `random_function_with_loops`), then, each on a
/// fresh parse in a fresh context:
///
/// * `--spmd-reconverge` (arbitrary ordering and selector length) must
///   succeed, its output must verify, be reconverging (uniformity analysis
///   plus Definition 1, [`spmd::check_reconverging`]) and be left
///   unchanged by a second run;
/// * `--spmd-structurize{irreducible=fix}` (arbitrary ordering, selector
///   length, uniform-region skipping) must succeed, its output must verify,
///   satisfy the structured contract
///   ([`spmd::testing::checks::check_structured`] and the marker
///   pairing) and be left unchanged by a second run.
///
/// Panics with the function's text and the pipeline on any failure.
pub fn reconverge_definition1(data: &[u8]) {
    let Ok(case) = ReconvergeCase::arbitrary(&mut Unstructured::new(data)) else {
        return;
    };
    let source = case.text();
    let context = fresh_context();

    let pipeline = case.reconverge_pipeline();
    let module = transform(&context, &source, &pipeline);
    if let Some(problem) = not_reconverging(&module) {
        fail(&source, &pipeline, &module, &problem);
    }

    let pipeline = case.structurize_pipeline();
    let module = transform(&context, &source, &pipeline);
    if let Some(problem) = not_structured(&module) {
        fail(&source, &pipeline, &module, &problem);
    }
}

fn fail(source: &str, pipeline: &str, module: &Module, problem: &str) -> ! {
    panic!(
        "{pipeline}: {problem}\ninput:\n{source}\noutput:\n{}",
        mlir::text(module)
    )
}

/// `source` parsed and run through `pipeline`, which must succeed with
/// verified IR and be idempotent.
fn transform<'c>(context: &'c melior::Context, source: &str, pipeline: &str) -> Module<'c> {
    let mut module = mlir::parse(context, source).unwrap_or_else(|messages| {
        panic!("the generated function does not parse: {messages:#?}\n{source}")
    });
    let failed = |messages: Vec<Message>| -> ! {
        panic!("{pipeline} failed: {messages:#?}\ninput:\n{source}")
    };
    if let Err(messages) = mlir::run_pipeline(context, &mut module, pipeline) {
        failed(messages);
    }
    if let Err(messages) = mlir::verify(context, &module) {
        fail(
            source,
            pipeline,
            &module,
            &format!("invalid output: {messages:#?}"),
        );
    }
    let once = mlir::text(&module);
    if let Err(messages) = mlir::run_pipeline(context, &mut module, pipeline) {
        failed(messages);
    }
    if mlir::text(&module) != once {
        fail(
            source,
            pipeline,
            &module,
            &format!("not idempotent; after the first run:\n{once}"),
        );
    }
    module
}

/// The first Definition 1 violation of a function of `module`, as the
/// reconverge integration test reads it.
fn not_reconverging(module: &Module) -> Option<String> {
    for function in cfg_regions(module.as_operation())
        .into_iter()
        .filter(|r| r.function_like)
    {
        let uniformity = match RegionUniformity::compute(
            function.owner,
            function.region,
            &UniformityOptions::default(),
        ) {
            Ok(uniformity) => uniformity,
            Err(e) => return Some(format!("cannot analyse the output: {e}")),
        };
        let violations = spmd::check_reconverging(uniformity.graph().graph(), &|b| {
            uniformity.is_divergent_branch_id(b)
        });
        if !violations.is_empty() {
            return Some(format!("not reconverging: {violations:?}"));
        }
    }
    None
}

/// The first violation of the structured contract in a function of
/// `module`, as `--spmd-verify-structured` (without `use-uniformity`)
/// reads it: every branch not marked uniform must reconverge.
fn not_structured(module: &Module) -> Option<String> {
    for function in cfg_regions(module.as_operation())
        .into_iter()
        .filter(|r| r.function_like)
    {
        let graph = match RegionGraph::snapshot(function.region) {
            Ok(graph) => graph,
            Err(e) => return Some(format!("cannot snapshot the output: {e}")),
        };
        let shapes = flow_shapes(&graph);
        let violations = check_structured(
            graph.graph(),
            &StructuredInput {
                must_reconverge: &|b| !is_marked_uniform(graph.terminator(b)),
                is_exit: &|b| is_function_exit(graph.terminator(b)),
                flow: &|b| shapes[b.index()],
            },
        );
        if !violations.is_empty() {
            return Some(format!("not structured: {violations:?}"));
        }
        if let Some((_, message)) = first_marker_error(&graph) {
            return Some(format!("reconvergence markers: {message}"));
        }
    }
    None
}
