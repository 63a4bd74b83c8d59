//! The balance stage's QP solver against two answers found without it: clarabel's
//! interior-point method, and (for small programs) every active set tried in turn, the
//! one whose KKT point is feasible with non-negative multipliers being the optimum.

// Matrix code reads best with its indices.
#![allow(clippy::needless_range_loop)]

use aibo_motion::stability::qp::{self, Bound, Constraint, Matrix, Problem, QpError};
use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, NonnegativeConeT, SolverStatus, ZeroConeT,
};

/// A small deterministic generator (the tests need no crate for it).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// A random strictly convex program with `eq` equalities and `ineq` inequalities; when
/// `feasible`, a random point satisfies them all.
fn random(rng: &mut Lcg, n: usize, eq: usize, ineq: usize, feasible: bool) -> Problem {
    let mut a = Matrix::zeros(n, n);
    for v in a.data.iter_mut() {
        *v = rng.next();
    }
    let mut h = Matrix::zeros(n, n);
    for i in 0..n {
        for j in 0..n {
            let s: f64 = (0..n).map(|k| a.at(k, i) * a.at(k, j)).sum();
            h.set(i, j, s + if i == j { 0.1 } else { 0.0 });
        }
    }
    let point: Vec<f64> = (0..n).map(|_| 3.0 * rng.next()).collect();
    let row = |rng: &mut Lcg| -> Vec<f64> { (0..n).map(|_| rng.next()).collect() };
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let equalities = (0..eq)
        .map(|_| {
            let a = row(rng);
            let b = dot(&a, &point);
            Constraint { a, b }
        })
        .collect();
    let inequalities = (0..ineq)
        .map(|_| {
            let a = row(rng);
            let room = if feasible { rng.next().abs() } else { -2.0 };
            let b = dot(&a, &point) - room;
            Constraint { a, b }
        })
        .collect();
    Problem {
        hessian: h,
        linear: (0..n).map(|_| 5.0 * rng.next()).collect(),
        equalities,
        inequalities,
        bounds: Vec::new(),
    }
}

fn objective(p: &Problem, x: &[f64]) -> f64 {
    let n = x.len();
    let quad: f64 = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| x[i] * p.hessian.at(i, j) * x[j])
                .sum::<f64>()
        })
        .sum();
    0.5 * quad + p.linear.iter().zip(x).map(|(g, v)| g * v).sum::<f64>()
}

/// clarabel's answer: Some(x) when solved, None when it finds no feasible point.
fn clarabel(p: &Problem) -> Option<Vec<f64>> {
    let n = p.linear.len();
    let dense = |rows: &[Vec<f64>], cols: usize| {
        let (mut colptr, mut rowval, mut nzval) = (vec![0], Vec::new(), Vec::new());
        for c in 0..cols {
            for (r, row) in rows.iter().enumerate() {
                if row[c] != 0.0 {
                    rowval.push(r);
                    nzval.push(row[c]);
                }
            }
            colptr.push(rowval.len());
        }
        CscMatrix::new(rows.len(), cols, colptr, rowval, nzval)
    };
    // The upper triangle of H.
    let upper: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| if j >= i { p.hessian.at(i, j) } else { 0.0 })
                .collect()
        })
        .collect();
    // Ax + s = b: equalities with s = 0; aᵀx ≥ b as −aᵀx + s = −b, s ≥ 0.
    let mut rows: Vec<Vec<f64>> = p.equalities.iter().map(|c| c.a.clone()).collect();
    let mut b: Vec<f64> = p.equalities.iter().map(|c| c.b).collect();
    for c in &p.inequalities {
        rows.push(c.a.iter().map(|v| -v).collect());
        b.push(-c.b);
    }
    let cones = [
        ZeroConeT(p.equalities.len()),
        NonnegativeConeT(p.inequalities.len()),
    ];
    let settings = DefaultSettingsBuilder::default()
        .verbose(false)
        .tol_gap_abs(1e-11)
        .tol_gap_rel(1e-11)
        .tol_feas(1e-11)
        .build()
        .unwrap();
    let mut solver = DefaultSolver::new(
        &dense(&upper, n),
        &p.linear,
        &dense(&rows, n),
        &b,
        &cones,
        settings,
    )
    .unwrap();
    solver.solve();
    match solver.solution.status {
        SolverStatus::Solved | SolverStatus::AlmostSolved => Some(solver.solution.x.clone()),
        _ => None,
    }
}

/// `x` is clarabel's optimum of `p` (trial `trial`): the same objective, to 1e-6
/// relatively, and the same point, to 1e-4 on every variable.
fn assert_as_clarabel(p: &Problem, x: &[f64], trial: usize) {
    let theirs = clarabel(p).unwrap_or_else(|| panic!("trial {trial}: clarabel failed"));
    let (f, g) = (objective(p, x), objective(p, &theirs));
    assert!(
        (f - g).abs() <= 1e-6 * (1.0 + g.abs()),
        "trial {trial}: objective {f} against clarabel's {g}"
    );
    for (a, b) in x.iter().zip(&theirs) {
        assert!(
            (a - b).abs() < 1e-4,
            "trial {trial}: {x:?} against {theirs:?}"
        );
    }
}

#[test]
fn it_finds_what_clarabel_finds_on_random_programs() {
    let mut rng = Lcg(7);
    let mut compared = 0;
    for trial in 0..400 {
        let n = 2 + trial % 11;
        let eq = (trial / 3) % n.min(4);
        let ineq = (trial * 7) % 30;
        let p = random(&mut rng, n, eq, ineq, true);
        let ours = qp::solve(&p).unwrap_or_else(|e| panic!("trial {trial}: {e}"));
        assert_as_clarabel(&p, &ours.x, trial);
        for c in &p.equalities {
            let v: f64 = c.a.iter().zip(&ours.x).map(|(a, x)| a * x).sum();
            assert!(
                (v - c.b).abs() < 1e-8,
                "trial {trial}: equality off by {}",
                v - c.b
            );
        }
        for c in &p.inequalities {
            let v: f64 = c.a.iter().zip(&ours.x).map(|(a, x)| a * x).sum();
            assert!(
                v >= c.b - 1e-8,
                "trial {trial}: inequality short by {}",
                c.b - v
            );
        }
        compared += 1;
    }
    assert_eq!(compared, 400);
}

#[test]
fn it_says_infeasible_where_clarabel_finds_no_point() {
    let mut rng = Lcg(99);
    let mut infeasible = 0;
    for trial in 0..200 {
        let n = 2 + trial % 5;
        // More contradicting constraints than room: mostly infeasible, sometimes not.
        let p = random(&mut rng, n, trial % 2, 2 * n + 2, false);
        let ours = qp::solve(&p);
        match clarabel(&p) {
            Some(x) => {
                let ours = ours.unwrap_or_else(|e| panic!("trial {trial}: {e}"));
                let (f, g) = (objective(&p, &ours.x), objective(&p, &x));
                assert!((f - g).abs() <= 1e-6 * (1.0 + g.abs()), "trial {trial}");
            }
            None => {
                assert_eq!(ours, Err(QpError::Infeasible), "trial {trial}");
                infeasible += 1;
            }
        }
    }
    assert!(infeasible > 50, "{infeasible}");
}

/// The optimum by enumeration: for every subset of the inequalities taken as equalities,
/// the KKT system's solution; the one that is feasible with multipliers ≥ 0.
fn by_enumeration(p: &Problem) -> Vec<f64> {
    let n = p.linear.len();
    let m = p.inequalities.len();
    for mask in 0u32..(1 << m) {
        let active: Vec<&Constraint> = p
            .equalities
            .iter()
            .chain(
                (0..m)
                    .filter(|i| mask & (1 << i) != 0)
                    .map(|i| &p.inequalities[i]),
            )
            .collect();
        // [H Aᵀ; A 0] [x; −λ] = [−g; b], solved by Gaussian elimination.
        let k = active.len();
        let size = n + k;
        let mut a = vec![vec![0.0; size + 1]; size];
        for i in 0..n {
            for j in 0..n {
                a[i][j] = p.hessian.at(i, j);
            }
            a[i][size] = -p.linear[i];
        }
        for (r, c) in active.iter().enumerate() {
            for j in 0..n {
                a[n + r][j] = c.a[j];
                a[j][n + r] = c.a[j];
            }
            a[n + r][size] = c.b;
        }
        let mut singular = false;
        for col in 0..size {
            let pivot = (col..size)
                .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
                .unwrap();
            if a[pivot][col].abs() < 1e-12 {
                singular = true;
                break;
            }
            a.swap(col, pivot);
            for r in 0..size {
                if r != col {
                    let f = a[r][col] / a[col][col];
                    for c in col..=size {
                        a[r][c] -= f * a[col][c];
                    }
                }
            }
        }
        if singular {
            continue;
        }
        let sol: Vec<f64> = (0..size).map(|i| a[i][size] / a[i][i]).collect();
        let x = &sol[..n];
        // Multipliers of the inequalities: H x + g = Aᵀλ, so λ = −(second block).
        let feasible = p
            .inequalities
            .iter()
            .all(|c| c.a.iter().zip(x).map(|(a, v)| a * v).sum::<f64>() >= c.b - 1e-9);
        let signs = sol[n + p.equalities.len()..].iter().all(|&l| -l >= -1e-9);
        if feasible && signs {
            return x.to_vec();
        }
    }
    panic!("no active set is optimal");
}

#[test]
fn it_finds_the_optimum_that_enumerating_active_sets_finds() {
    let mut rng = Lcg(2024);
    for trial in 0..300 {
        let n = 2 + trial % 4;
        let p = random(&mut rng, n, trial % 2, 1 + trial % 7, true);
        let ours = qp::solve(&p).unwrap();
        let want = by_enumeration(&p);
        for (a, b) in ours.x.iter().zip(&want) {
            assert!(
                (a - b).abs() < 1e-7,
                "trial {trial}: {:?} vs {want:?}",
                ours.x
            );
        }
    }
}

/// A program shaped as the balance stage's: the body's five variables, four legs of
/// three joints, three head joints and a shortfall, 21 in all; three equalities per
/// planted paw, each over the body's variables and its own leg's alone (one leg's block
/// singular, as a stretched leg's is); each variable bounded on both sides, and a few
/// dense rows as the centre of mass's edges.
fn stage_shaped(rng: &mut Lcg) -> Problem {
    let n = 21;
    let mut p = random(rng, n, 0, 0, true);
    let point: Vec<f64> = (0..n).map(|_| 0.5 * rng.next()).collect();
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    for paw in 0..4 {
        let leg = 5 + 3 * paw;
        for _ in 0..3 {
            let mut a = vec![0.0; n];
            for v in a.iter_mut().take(5) {
                *v = rng.next();
            }
            for v in &mut a[leg..leg + 3] {
                *v = 100.0 * rng.next();
            }
            if paw == 2 {
                // The leg's third joint moves its paw as its first does.
                a[leg + 2] = a[leg];
            }
            let b = dot(&a, &point);
            p.equalities.push(Constraint { a, b });
        }
    }
    for i in 0..n {
        let room = 0.2 + rng.next().abs();
        let mut a = vec![0.0; n];
        a[i] = 1.0;
        p.inequalities.push(Constraint {
            a: a.clone(),
            b: point[i] - room,
        });
        a[i] = -1.0;
        p.inequalities.push(Constraint {
            a,
            b: -point[i] - room,
        });
    }
    for _ in 0..4 {
        let a: Vec<f64> = (0..n).map(|_| rng.next()).collect();
        let b = dot(&a, &point) - rng.next().abs();
        p.inequalities.push(Constraint { a, b });
    }
    p
}

#[test]
fn the_stage_s_block_sparse_equalities_are_eliminated_and_a_dependent_one_found() {
    let mut rng = Lcg(31);
    for trial in 0..60 {
        let p = stage_shaped(&mut rng);
        // One more equality, a combination of two paws' rows: dependent, and agreeing.
        let (r, s) = (&p.equalities[1], &p.equalities[7]);
        let combined = Constraint {
            a: r.a.iter().zip(&s.a).map(|(x, y)| x - 2.0 * y).collect(),
            b: r.b - 2.0 * s.b,
        };
        let mut with_it = p.clone();
        with_it.equalities.push(combined.clone());
        let ours = qp::solve(&with_it).unwrap_or_else(|e| panic!("trial {trial}: {e}"));
        // clarabel, without the dependent row: the same optimum.
        assert_as_clarabel(&p, &ours.x, trial);
        for c in &with_it.equalities {
            let v: f64 = c.a.iter().zip(&ours.x).map(|(a, x)| a * x).sum();
            assert!((v - c.b).abs() < 1e-7, "trial {trial}: off by {}", v - c.b);
        }
        // The same combination disagreeing: no point holds them all.
        let mut contradicting = p.clone();
        contradicting.equalities.push(Constraint {
            b: combined.b + 1.0,
            ..combined
        });
        assert_eq!(
            qp::solve(&contradicting),
            Err(QpError::Infeasible),
            "trial {trial}"
        );
    }
}

#[test]
fn a_bound_is_solved_to_the_bit_as_the_single_entry_row_it_stands_for() {
    // The stage gives its joints' bounds as `Bound`s, without a row of n each: each must
    // be that row with its one entry, taken after the other inequalities.
    let mut rng = Lcg(47);
    let mut bounds_held = 0;
    for trial in 0..60 {
        let p = stage_shaped(&mut rng);
        let single = |c: &Constraint| c.a.iter().filter(|v| **v != 0.0).count() == 1;
        let (unit, dense): (Vec<Constraint>, Vec<Constraint>) =
            p.inequalities.iter().cloned().partition(single);
        let as_rows = Problem {
            inequalities: dense.iter().chain(&unit).cloned().collect(),
            ..p.clone()
        };
        let as_bounds = Problem {
            inequalities: dense.clone(),
            bounds: unit
                .iter()
                .map(|c| {
                    let (variable, &sign) =
                        c.a.iter().enumerate().find(|(_, v)| **v != 0.0).unwrap();
                    Bound {
                        variable,
                        sign,
                        b: c.b,
                    }
                })
                .collect(),
            ..p.clone()
        };
        let (rows, bounds) = (qp::solve(&as_rows).unwrap(), qp::solve(&as_bounds).unwrap());
        let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&rows.x), bits(&bounds.x), "trial {trial}");
        assert_eq!(rows.active, bounds.active, "trial {trial}");
        assert_as_clarabel(&as_rows, &bounds.x, trial);
        bounds_held += usize::from(bounds.active.iter().any(|&i| i >= dense.len()));
    }
    // The bounds shape the answers: most programs end on one.
    assert!(bounds_held > 30, "{bounds_held} of 60");
    // A bound on a variable the program lacks, or a bound that is no number, is refused.
    let mut p = stage_shaped(&mut rng);
    let n = p.linear.len();
    for bad in [
        Bound {
            variable: n,
            sign: 1.0,
            b: 0.0,
        },
        Bound {
            variable: 0,
            sign: 1.0,
            b: f64::NAN,
        },
    ] {
        p.bounds = vec![bad];
        assert_eq!(qp::solve(&p), Err(QpError::Shape), "{bad:?}");
    }
}
