//! A layered drawing of a DAG, left to right (Sugiyama's method): a
//! dependency is always left of its dependents, so the plan reads in build
//! order like the timeline.
//!
//! 1. Layers: a node's layer is one more than its dependencies' highest
//!    (longest path); a node without dependencies moves right next to its
//!    nearest dependent, so leaves and externals do not pile up far left.
//! 2. Edges spanning several layers get a dummy vertex in every layer they
//!    cross, so they are routed between the nodes instead of through them.
//! 3. Crossing reduction: the order within each layer is sorted by the
//!    barycentre of the neighbours in the layer before it, sweeping left to
//!    right and back; the order with the fewest crossings is kept.
//! 4. Vertical positions: each vertex wants the mean height of its
//!    neighbours; the layer's order and the minimum gaps are kept by
//!    isotonic regression (pool adjacent violators), so the nodes are
//!    pulled to their neighbours without overlapping, and long edges run
//!    straight.

/// Sizes of the drawing.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub node_w: f64,
    pub node_h: f64,
    /// Horizontal space between two layers (where edges bend).
    pub layer_gap: f64,
    /// Vertical space between two nodes of a layer.
    pub node_gap: f64,
    /// Vertical space a dummy (an edge crossing a layer) takes.
    pub dummy_gap: f64,
    pub margin: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            node_w: 176.0,
            node_h: 22.0,
            layer_gap: 64.0,
            node_gap: 8.0,
            dummy_gap: 5.0,
            margin: 12.0,
        }
    }
}

/// Where everything goes.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Top-left corner of each node.
    pub nodes: Vec<(f64, f64)>,
    /// Per edge (in the order given), the points it passes: from the right
    /// side of the dependency to the left side of the dependent.
    pub edges: Vec<Vec<(f64, f64)>>,
    pub layer: Vec<usize>,
    pub width: f64,
    pub height: f64,
    /// Edge crossings left between adjacent layers.
    pub crossings: usize,
}

struct Vertex {
    layer: usize,
    dummy: bool,
    left: Vec<usize>,
    right: Vec<usize>,
}

/// Lay out `n` nodes with `edges` as `(dependency, dependent)` pairs. The
/// node order given is the starting order of each layer (pass related nodes
/// next to each other). A cycle is broken arbitrarily.
pub fn layout(n: usize, edges: &[(usize, usize)], p: &Params) -> Layout {
    let layer = layers(n, edges);
    let nlayers = layer.iter().copied().max().map_or(0, |m| m + 1);
    // The vertices: nodes, then the dummies of long edges.
    let mut vs: Vec<Vertex> = (0..n)
        .map(|i| Vertex {
            layer: layer[i],
            dummy: false,
            left: Vec::new(),
            right: Vec::new(),
        })
        .collect();
    let mut chains: Vec<Vec<usize>> = Vec::with_capacity(edges.len());
    for &(d, u) in edges {
        let mut chain = vec![d];
        let (ld, lu) = (layer[d], layer[u]);
        if lu > ld {
            for l in ld + 1..lu {
                vs.push(Vertex {
                    layer: l,
                    dummy: true,
                    left: Vec::new(),
                    right: Vec::new(),
                });
                chain.push(vs.len() - 1);
            }
        }
        chain.push(u);
        for w in chain.windows(2) {
            if vs[w[0]].layer < vs[w[1]].layer {
                vs[w[0]].right.push(w[1]);
                vs[w[1]].left.push(w[0]);
            }
        }
        chains.push(chain);
    }
    let mut order: Vec<Vec<usize>> = vec![Vec::new(); nlayers];
    for (i, v) in vs.iter().enumerate() {
        order[v.layer].push(i);
    }
    let crossings = reduce_crossings(&vs, &mut order);
    let centre = place(&vs, &order, p);
    let x = |l: usize| p.margin + l as f64 * (p.node_w + p.layer_gap);
    let nodes: Vec<(f64, f64)> = (0..n)
        .map(|i| (x(layer[i]), centre[i] - p.node_h / 2.0))
        .collect();
    let edges_out = chains
        .iter()
        .map(|chain| {
            let mut pts = Vec::with_capacity(chain.len() * 2);
            let (first, last) = (chain[0], chain[chain.len() - 1]);
            pts.push((x(layer[first]) + p.node_w, centre[first]));
            for &d in &chain[1..chain.len() - 1] {
                let l = vs[d].layer;
                pts.push((x(l), centre[d]));
                pts.push((x(l) + p.node_w, centre[d]));
            }
            pts.push((x(layer[last]), centre[last]));
            pts
        })
        .collect();
    let width = if nlayers == 0 {
        2.0 * p.margin
    } else {
        x(nlayers - 1) + p.node_w + p.margin
    };
    let height = centre
        .iter()
        .zip(&vs)
        .map(|(c, v)| c + if v.dummy { 0.0 } else { p.node_h / 2.0 })
        .fold(0.0f64, f64::max)
        + p.margin;
    Layout {
        nodes,
        edges: edges_out,
        layer,
        width,
        height,
        crossings,
    }
}

/// Longest-path layers, dependencies left; nodes without dependencies
/// next to their nearest dependent.
fn layers(n: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    let mut deps = vec![Vec::new(); n];
    let mut dependents = vec![Vec::new(); n];
    for &(d, u) in edges {
        if d != u {
            deps[u].push(d);
            dependents[d].push(u);
        }
    }
    let mut missing: Vec<usize> = deps.iter().map(Vec::len).collect();
    let mut queue: Vec<usize> = (0..n).filter(|&i| missing[i] == 0).rev().collect();
    let mut layer = vec![0usize; n];
    let mut done = vec![false; n];
    loop {
        while let Some(i) = queue.pop() {
            done[i] = true;
            for &u in &dependents[i] {
                if done[u] {
                    continue; // a cycle's back edge
                }
                layer[u] = layer[u].max(layer[i] + 1);
                missing[u] -= 1;
                if missing[u] == 0 {
                    queue.push(u);
                }
            }
        }
        // A cycle: start again from a node not yet placed.
        match (0..n).find(|&i| !done[i]) {
            Some(i) => {
                missing[i] = 0;
                queue.push(i);
            }
            None => break,
        }
    }
    for i in 0..n {
        if deps[i].is_empty()
            && let Some(m) = dependents[i].iter().map(|&u| layer[u]).min()
        {
            layer[i] = m.saturating_sub(1);
        }
    }
    // Edges must go left to right: a cycle's back edge is left as it is.
    layer
}

/// Barycentre sweeps; leaves the best order found in `order`; returns its
/// crossings.
fn reduce_crossings(vs: &[Vertex], order: &mut [Vec<usize>]) -> usize {
    // Positions are fractions of the layer (layers differ in length), so
    // keys taken from a neighbouring layer compare with kept ones.
    let mut pos = vec![0.0f64; vs.len()];
    let set_layer = |layer: &[usize], pos: &mut [f64]| {
        let n = layer.len() as f64;
        for (k, &v) in layer.iter().enumerate() {
            pos[v] = (k as f64 + 0.5) / n;
        }
    };
    let set_pos = |order: &[Vec<usize>], pos: &mut [f64]| {
        for layer in order {
            set_layer(layer, pos);
        }
    };
    set_pos(order, &mut pos);
    let mut best = order.to_vec();
    let mut best_c = crossings(vs, order);
    for iter in 0..24 {
        let left_to_right = iter % 2 == 0;
        let layers: Vec<usize> = if left_to_right {
            (1..order.len()).collect()
        } else {
            (0..order.len().saturating_sub(1)).rev().collect()
        };
        for l in layers {
            let mut keyed: Vec<(f64, usize)> = order[l]
                .iter()
                .map(|&v| {
                    let nb: Vec<usize> = if vs[v].dummy {
                        // Both ends: a long edge's dummies interpolate
                        // between its ends instead of copying one side.
                        vs[v].left.iter().chain(&vs[v].right).copied().collect()
                    } else if left_to_right {
                        vs[v].left.clone()
                    } else {
                        vs[v].right.clone()
                    };
                    let key = if nb.is_empty() {
                        pos[v]
                    } else {
                        nb.iter().map(|&w| pos[w]).sum::<f64>() / nb.len() as f64
                    };
                    (key, v)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
            order[l] = keyed.into_iter().map(|(_, v)| v).collect();
            set_layer(&order[l], &mut pos);
        }
        let c = crossings(vs, order);
        if c < best_c {
            best_c = c;
            best = order.to_vec();
        }
        if best_c == 0 {
            break;
        }
    }
    order.clone_from_slice(&best);
    best_c
}

/// Crossings between adjacent layers (inversions, counted with a Fenwick tree).
fn crossings(vs: &[Vertex], order: &[Vec<usize>]) -> usize {
    let mut rank = vec![0usize; vs.len()];
    for layer in order {
        for (k, &v) in layer.iter().enumerate() {
            rank[v] = k;
        }
    }
    let mut total = 0;
    for l in 0..order.len().saturating_sub(1) {
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for &v in &order[l] {
            for &w in &vs[v].right {
                pairs.push((rank[v], rank[w]));
            }
        }
        pairs.sort_unstable();
        let size = order[l + 1].len() + 1;
        let mut tree = vec![0usize; size + 1];
        for (seen, &(_, b)) in pairs.iter().enumerate() {
            // Earlier pairs whose right end is below b cross this one.
            let mut i = b + 1;
            let mut not_greater = 0;
            while i > 0 {
                not_greater += tree[i];
                i &= i - 1;
            }
            total += seen - not_greater;
            let mut i = b + 1;
            while i <= size {
                tree[i] += 1;
                i += i & i.wrapping_neg();
            }
        }
    }
    total
}

/// Vertical centres: each vertex pulled to its neighbours, order and gaps kept.
fn place(vs: &[Vertex], order: &[Vec<usize>], p: &Params) -> Vec<f64> {
    let height = |v: usize| if vs[v].dummy { 0.0 } else { p.node_h };
    let gap = |a: usize, b: usize| {
        let space = if vs[a].dummy || vs[b].dummy {
            p.dummy_gap
        } else {
            p.node_gap
        };
        (height(a) + height(b)) / 2.0 + space
    };
    let mut c = vec![0.0f64; vs.len()];
    for layer in order {
        let mut y = 0.0;
        for (k, &v) in layer.iter().enumerate() {
            if k > 0 {
                y += gap(layer[k - 1], v);
            }
            c[v] = y;
        }
    }
    for iter in 0..8 {
        let forward = iter % 2 == 0;
        let layers: Vec<usize> = if forward {
            (0..order.len()).collect()
        } else {
            (0..order.len()).rev().collect()
        };
        for l in layers {
            let layer = &order[l];
            let want: Vec<f64> = layer
                .iter()
                .map(|&v| {
                    let (a, b) = if forward {
                        (&vs[v].left, &vs[v].right)
                    } else {
                        (&vs[v].right, &vs[v].left)
                    };
                    let nb = if a.is_empty() { b } else { a };
                    if nb.is_empty() {
                        c[v]
                    } else {
                        nb.iter().map(|&w| c[w]).sum::<f64>() / nb.len() as f64
                    }
                })
                .collect();
            let mut offset = vec![0.0f64; layer.len()];
            for k in 1..layer.len() {
                offset[k] = offset[k - 1] + gap(layer[k - 1], layer[k]);
            }
            let target: Vec<f64> = want.iter().zip(&offset).map(|(w, o)| w - o).collect();
            let weight: Vec<f64> = layer
                .iter()
                .map(|&v| if vs[v].dummy { 2.0 } else { 1.0 })
                .collect();
            let z = isotonic(&target, &weight);
            for (k, &v) in layer.iter().enumerate() {
                c[v] = z[k] + offset[k];
            }
        }
    }
    // Shift everything down so the topmost box starts at the margin.
    let top = (0..vs.len())
        .map(|v| c[v] - height(v) / 2.0)
        .fold(f64::INFINITY, f64::min);
    let shift = if top.is_finite() { p.margin - top } else { 0.0 };
    c.iter().map(|y| y + shift).collect()
}

/// The non-decreasing sequence closest to `t` (weighted least squares):
/// pool adjacent violators.
fn isotonic(t: &[f64], w: &[f64]) -> Vec<f64> {
    // Blocks of (mean, weight, length).
    let mut blocks: Vec<(f64, f64, usize)> = Vec::with_capacity(t.len());
    for (i, &y) in t.iter().enumerate() {
        blocks.push((y, w[i], 1));
        while blocks.len() > 1 {
            let (m2, w2, n2) = blocks[blocks.len() - 1];
            let (m1, w1, n1) = blocks[blocks.len() - 2];
            if m1 <= m2 {
                break;
            }
            blocks.pop();
            let last = blocks.last_mut().expect("two blocks");
            *last = ((m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, n1 + n2);
        }
    }
    blocks
        .into_iter()
        .flat_map(|(m, _, n)| std::iter::repeat_n(m, n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlaps(l: &Layout, p: &Params) -> bool {
        let n = l.nodes.len();
        (0..n).any(|a| {
            (a + 1..n)
                .any(|b| l.layer[a] == l.layer[b] && (l.nodes[a].1 - l.nodes[b].1).abs() < p.node_h)
        })
    }

    #[test]
    fn dependencies_are_left_of_their_dependents_and_nothing_overlaps() {
        // 0 <- 1 <- 2, 0 <- 2 (long edge), 3 a leaf used by 2 only.
        let edges = [(0, 1), (1, 2), (0, 2), (3, 2)];
        let p = Params::default();
        let l = layout(4, &edges, &p);
        assert_eq!(
            l.layer,
            vec![0, 1, 2, 1],
            "the leaf sits next to its dependent"
        );
        for &(d, u) in &edges {
            assert!(l.nodes[d].0 < l.nodes[u].0);
        }
        assert!(!overlaps(&l, &p));
        // The long edge passes the middle layer at a dummy: 4 points.
        assert_eq!(l.edges[2].len(), 4);
        assert!(l.width > 3.0 * p.node_w && l.height >= p.node_h);
    }

    #[test]
    fn crossings_are_removed_where_an_order_without_them_exists() {
        // Two chains drawn crossed at first: a0->b1, a1->b0.
        let edges = [(0, 3), (1, 2)];
        let l = layout(4, &edges, &Params::default());
        assert_eq!(l.crossings, 0);
        let y = |i: usize| l.nodes[i].1;
        assert_eq!(y(0) < y(1), y(3) < y(2));
    }

    #[test]
    fn a_cycle_does_not_hang_the_layout() {
        let l = layout(3, &[(0, 1), (1, 2), (2, 0)], &Params::default());
        assert_eq!(l.nodes.len(), 3);
    }

    #[test]
    fn isotonic_regression_pools_violators() {
        assert_eq!(
            isotonic(&[1.0, 3.0, 2.0, 4.0], &[1.0; 4]),
            [1.0, 2.5, 2.5, 4.0]
        );
        assert_eq!(isotonic(&[3.0, 1.0], &[3.0, 1.0]), [2.5, 2.5]);
    }

    #[test]
    fn a_wide_random_dag_lays_out_in_layers_without_overlaps() {
        // 300 nodes, deterministic pseudo-random edges to earlier nodes.
        let mut edges = Vec::new();
        let mut x: u64 = 7;
        for u in 20..300usize {
            for _ in 0..3 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let d = (x >> 33) as usize % u;
                if !edges.contains(&(d, u)) {
                    edges.push((d, u));
                }
            }
        }
        let p = Params::default();
        let l = layout(300, &edges, &p);
        assert!(!overlaps(&l, &p));
        for &(d, u) in &edges {
            assert!(l.layer[d] < l.layer[u]);
        }
    }
}
