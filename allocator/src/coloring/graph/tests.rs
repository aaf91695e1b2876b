use super::*;
use crate::fixtures::{int_machine, unit_case};
use crate::ir::case::Case;

/// The aggressively coalesced graph of `case`.
fn graph(case: &Case) -> Graph {
    let facts = Facts::new(&case.func);
    build(&case.func, &case.machine, &facts)
}

#[test]
fn a_group_needs_a_register_for_operands_that_ask_and_for_copies() {
    let g = graph(&unit_case(
        "coloring_graph/a_group_needs_a_register_for_operands_that_ask_and_for_copies",
    ));
    let needs = |v: usize| g.in_register[g.find(v)];
    // v1i and v2i are one group, the def reusing a slot read; v0i
    // (written anywhere) and v6i (read in a register) one too, v0i
    // its representative.
    assert_eq!(g.find(1), g.find(2));
    assert!(!needs(1) && !needs(2));
    assert_eq!(g.find(6), 0);
    assert!(g.in_register[0]);
    // v3i is read in a register; v4i is where v3i was, and with it.
    assert!(needs(3) && needs(4));
    // v5i is read after block1's entry: the copy to v7i stays.
    assert_ne!(g.find(5), g.find(7));
    assert!(needs(5) && needs(7));
    // v8i and v9i are one group, the copy between them gone.
    assert_eq!(g.find(8), g.find(9));
    assert!(!needs(8));
}

#[test]
fn a_group_asks_for_every_register_its_operands_name() {
    // v0i and v1i coalesce across the edge; v0i's limit(1) def asks for
    // p0i, v1i's fixed read for p2i, and a parameter nothing reads for
    // nothing.
    let g = graph(&unit_case(
        "coloring_graph/a_group_asks_for_every_register_its_operands_name",
    ));
    let r = g.find(0);
    assert_eq!(g.find(1), r);
    assert_eq!(g.prefer[r], 0b101);
    assert_eq!(g.prefer[2], 0);
    assert!(!g.interferes(r, g.find(2)) || g.find(2) == r);
}

#[test]
fn cost_area_and_masks_follow_uses_loops_and_clobbers() {
    let g = graph(&unit_case(
        "coloring_graph/cost_area_and_masks_follow_uses_loops_and_clobbers",
    ));
    // One def (1), a use in the loop (2 x 4) and one after it (2).
    assert_eq!(g.cost[0], 1.0 + 8.0 + 2.0);
    // Live after inst0, inst1 (1 each) and inst2, inst3, inst4 (4 each).
    assert_eq!(g.area[0], 2.0 + 12.0);
    // Live across the clobber of p1i.
    assert_eq!(g.mask[0], 0b101);
}

#[test]
fn copies_coalesce_only_without_interference_and_with_a_common_register() {
    // v1i's argument v0i is read after v1i is defined: no merge.
    let g = graph(&unit_case(
        "coloring_graph/copy_whose_argument_is_read_after_the_parameter",
    ));
    assert!(g.interferes(0, 1) && g.find(0) != g.find(1));
    // v0i lives across a clobber of p0i and p2i, v1i across one of p1i
    // and p2i: their masks do not meet.
    let g = graph(&unit_case(
        "coloring_graph/copy_between_masks_that_do_not_meet",
    ));
    assert_eq!((g.mask[0], g.mask[1]), (0b010, 0b001));
    assert!(!g.interferes(0, 1) && g.find(0) != g.find(1));
    assert_eq!(g.coalesced, 0);
}

#[test]
fn a_joins_parameters_interfere_with_what_the_branch_into_it_reads() {
    let g = graph(&unit_case(
        "coloring_graph/a_joins_parameters_interfere_with_what_the_branch_into_it_reads",
    ));
    // v1i dies where v2i is born, but the back edge's moves write v1i
    // before inst4 reads v2i: they interfere, and stay apart.
    assert!(g.interferes(g.find(1), g.find(2)));
    assert_ne!(g.find(1), g.find(2));
}

#[test]
fn a_merged_group_sums_costs_and_areas_and_meets_masks() {
    // v0i passes to v1i: no interference; masks {p0i, p1i} (v0i across
    // a clobber of p2i) and {p0i, p2i} (v1i across one of p1i) meet in
    // p0i.
    let g = graph(&unit_case(
        "coloring_graph/a_merged_group_sums_costs_and_areas_and_meets_masks",
    ));
    let r = g.find(0);
    assert_eq!(g.find(1), r);
    assert_eq!(g.coalesced, 1);
    assert_eq!(r, 0, "the smaller index stays the representative");
    assert_eq!(g.mask[r], 0b001);
    // Def (1) and the parameter (1), the read (2).
    assert_eq!(g.cost[r], 1.0 + 1.0 + 2.0);
    // v0i live after inst0, inst1, inst2; v1i after inst3.
    assert_eq!(g.area[r], 4.0);
    // The merged group interferes with what either did (v2i).
    assert!(g.interferes(r, 2) && g.interferes(2, r));
    assert_eq!(g.neighbours(2).collect::<Vec<_>>(), vec![0]);
}

/// More vregs than a row word holds: the matrix is read per word.
#[test]
fn rows_of_several_words() {
    let mut src = format!("{}function\n  block0:\n", int_machine("p0i-p2i"));
    for v in 0..70 {
        src += &format!("    inst{v}: op def:v{v}i:any\n");
    }
    src += "    inst70: ret use:v0i:any use:v69i:any use:v65i:any\nend\n";
    let (case, _) = crate::ir::text::parse_and_validate(src.as_bytes()).unwrap();
    let g = graph(&case);
    assert!(g.interferes(0, 69) && g.interferes(69, 0));
    assert!(g.interferes(65, 69) && g.interferes(0, 65));
    assert!(!g.interferes(1, 69) && !g.interferes(64, 65));
    assert_eq!(g.neighbours(69).collect::<Vec<_>>(), vec![0, 65]);
    assert_eq!(g.neighbours(66).collect::<Vec<_>>(), vec![0, 65]);
}

/// Two graphs equal in every group, mask, cost and edge.
fn assert_same(a: &Graph, b: &Graph) {
    assert_eq!(a.n, b.n);
    for v in 0..a.n {
        assert_eq!(a.find(v), b.find(v), "v{v}");
        if a.find(v) == v {
            let mut rows = [a, b].map(|g| g.row_neighbours(v).collect::<Vec<_>>());
            rows.iter_mut().for_each(|r| r.sort_unstable());
            assert_eq!(rows[0], rows[1], "neighbours of v{v}");
            assert_eq!(
                a.neighbours(v).collect::<Vec<_>>(),
                b.neighbours(v).collect::<Vec<_>>()
            );
        }
    }
    assert_eq!(
        (&a.mask, &a.prefer, &a.in_register),
        (&b.mask, &b.prefer, &b.in_register)
    );
    assert_eq!((&a.cost, &a.area, &a.copies), (&b.cost, &b.area, &b.copies));
    assert_eq!(a.coalesced, b.coalesced);
}

/// The bit matrix and the neighbour lists give the same graph, built and
/// coalesced, on the coloring corpus, the committed real code and the hand-written
/// cases.
#[test]
fn the_matrix_and_the_lists_give_the_same_graph() {
    let mut files = crate::fixtures::ra_files("corpus/coloring_checker");
    files.extend(crate::fixtures::ra_files("corpus/real/x86_64"));
    for dir in ["coloring", "unit/coloring_graph", "unit/coloring_split"] {
        files.extend(crate::fixtures::hand_written(dir));
    }
    // Coalesced graphs whose matrix is walked by its rows, not lists.
    let (mut merged, mut rows) = (0, 0);
    for path in &files {
        let case = crate::fixtures::read_case(path);
        let (f, env) = (&case.func, &case.machine);
        let facts = Facts::new(f);
        let mut both = [true, false].map(|m| interference_as(f, env, &facts, Some(m)));
        assert_same_edges(&both[0], &both[1], path);
        let edges: usize = (0..f.num_vregs())
            .map(|v| both[0].row_neighbours(v).count())
            .sum::<usize>()
            / 2;
        assert!(edges <= pairs_bound(f, &facts), "{}", path.display());
        for g in &mut both {
            coalesce(f, &facts, g);
        }
        assert_same(&both[0], &both[1]);
        merged += both[0].coalesced;
        rows += usize::from(both[0].adj_start.is_empty());
    }
    assert!(
        files.len() > 60 && merged > 1000 && rows > 10,
        "{} files, {merged} merges, {rows} by rows",
        files.len()
    );
}

/// Two graphs, before coalescing, with the same edges.
fn assert_same_edges(a: &Graph, b: &Graph, path: &std::path::Path) {
    for v in 0..a.n {
        let [x, y] = [a, b].map(|g| {
            let mut r = g.row_neighbours(v).collect::<Vec<_>>();
            r.sort_unstable();
            r
        });
        assert_eq!(x, y, "{}: neighbours of v{v}", path.display());
    }
}
