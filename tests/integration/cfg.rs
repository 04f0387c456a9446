//! The region snapshot adapter and the CFG analyses on parsed MLIR.

use crate::common::{context, parse};
use melior::ir::{
    block::BlockLike,
    operation::{OperationLike, OperationMutLike},
    RegionLike,
};
use spmd::{
    cfg_regions,
    graph::{BlockId, CfgAnalysis, Graph},
    RegionGraph,
};

const SOURCE: &str = r#"
  func.func @f(%c: i1, %x: i32) {
    cf.switch %x : i32, [default: ^a, 1: ^b, 2: ^b]
  ^a:
    llvm.cond_br %c, ^b, ^b
  ^b:
    spmd.flow_br %c, ^a, ^done
  ^done:
    return
  }
  func.func @g() {
    return
  }"#;

#[test]
fn snapshot_keeps_every_successor_slot_and_maps_blocks_back() {
    let context = context();
    let module = parse(&context, SOURCE);
    let regions = cfg_regions(module.as_operation());
    let labels: Vec<&str> = regions.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["@f", "@g"]);

    let graph = RegionGraph::snapshot(regions[0].region).expect("snapshot");
    let g = graph.graph();
    assert_eq!(g.num_blocks(), 4);
    let ids = |b: &[BlockId]| b.iter().map(|x| x.index()).collect::<Vec<_>>();
    assert_eq!(ids(g.successors(BlockId::new(0))), [1, 2, 2]);
    assert_eq!(ids(g.successors(BlockId::new(1))), [2, 2]);
    assert_eq!(ids(g.successors(BlockId::new(2))), [1, 3]);
    assert!(g.is_exit(BlockId::new(3)));
    for index in 0..g.num_blocks() {
        let id = BlockId::new(index);
        assert_eq!(graph.id(graph.block(id)), Some(id));
    }
    assert_eq!(graph.name(BlockId::new(2)), "^bb2");
}

#[test]
fn analyses_recompute_after_an_edit_with_the_same_objects() {
    let context = context();
    let module = parse(&context, SOURCE);
    let region = cfg_regions(module.as_operation())[0].region;
    let mut graph = RegionGraph::snapshot(region).expect("snapshot");
    let mut analysis = CfgAnalysis::new();
    analysis.compute(graph.graph());
    assert_eq!(analysis.cycles().num_cycles(), 1);
    let b = BlockId::new(2);
    assert_eq!(analysis.post_dominators().ipdom(b), Some(BlockId::new(3)));

    // Edit: drop the back edge by making ^bb2 branch to ^done on both sides.
    let done = region
        .first_block()
        .unwrap()
        .next_in_region()
        .unwrap()
        .next_in_region()
        .unwrap()
        .next_in_region()
        .unwrap();
    let mut terminator = graph.block(b).terminator_mut().unwrap();
    terminator.set_successor(0, &done);
    graph.recompute(region).expect("snapshot");
    analysis.compute(graph.graph());
    assert_eq!(analysis.cycles().num_cycles(), 0);
    assert_eq!(analysis.runs(), 2);
    assert!(module.as_operation().verify());
}
