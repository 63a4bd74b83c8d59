//! A small dense convex quadratic program, solved exactly: the balance stage solves one
//! of about twenty variables for every keyframe of a motion, so it must be quick, and
//! it must say when there is no solution rather than return a poor one.
//!
//! minimise ½ xᵀHx + gᵀx subject to Aₑx = bₑ and Aᵢx ≥ bᵢ, with H symmetric positive
//! definite.
//!
//! The equalities are eliminated first: x = x₀ + Zy, with x₀ a solution of them and Z a
//! basis of their null space (Gaussian elimination with complete pivoting, so that
//! dependent equalities are found rather than divided by). The inequalities are
//! then handled by Goldfarb and Idnani's dual active-set method ("A numerically stable
//! dual method for solving strictly convex quadratic programs", Math. Programming 27,
//! 1983): start from the unconstrained minimum, add the most violated constraint, step
//! in the primal and dual spaces, and drop a constraint whose multiplier would turn
//! negative, until nothing is violated. NᵀG⁻¹N over the active rows is kept as rows join
//! and leave, and each step factorises it afresh: the problems here are small enough
//! that this costs less than updating the factorisation would save. Tested against
//! clarabel's interior-point solver and against enumeration of every active set.

// Matrix code reads best with its indices.
#![allow(clippy::needless_range_loop)]

/// A row-major dense matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    pub rows: usize,
    pub cols: usize,
    pub data: Vec<f64>,
}

impl Matrix {
    pub fn zeros(rows: usize, cols: usize) -> Matrix {
        Matrix {
            rows,
            cols,
            data: vec![0.0; rows * cols],
        }
    }

    pub fn at(&self, r: usize, c: usize) -> f64 {
        self.data[r * self.cols + c]
    }

    pub fn set(&mut self, r: usize, c: usize, v: f64) {
        self.data[r * self.cols + c] = v;
    }

    pub fn add(&mut self, r: usize, c: usize, v: f64) {
        self.data[r * self.cols + c] += v;
    }

    /// Row `r`, contiguous.
    pub fn row(&self, r: usize) -> &[f64] {
        &self.data[r * self.cols..(r + 1) * self.cols]
    }

    pub fn row_mut(&mut self, r: usize) -> &mut [f64] {
        &mut self.data[r * self.cols..(r + 1) * self.cols]
    }
}

/// One linear constraint: `aᵀx = b` or `aᵀx ≥ b`.
#[derive(Debug, Clone, PartialEq)]
pub struct Constraint {
    pub a: Vec<f64>,
    pub b: f64,
}

/// A bound on one variable: `sign · x[variable] ≥ b`, `sign` 1 (a lower bound) or −1
/// (an upper one). The same row as an inequality with that single entry, without a
/// vector of n for it: most of the balance stage's rows are its joints' bounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    pub variable: usize,
    pub sign: f64,
    pub b: f64,
}

/// A convex quadratic program.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// H, n×n, symmetric positive definite.
    pub hessian: Matrix,
    /// g.
    pub linear: Vec<f64>,
    pub equalities: Vec<Constraint>,
    pub inequalities: Vec<Constraint>,
    /// Further inequalities, after `inequalities` in the order rows are taken.
    pub bounds: Vec<Bound>,
}

/// Why a program has no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum QpError {
    #[error("the objective is not strictly convex")]
    NotConvex,
    #[error("the constraints cannot all hold")]
    Infeasible,
    #[error("the shapes of the program's parts disagree")]
    Shape,
    #[error("no solution within the step limit")]
    NoProgress,
}

/// The solution: x, and which inequalities hold with equality there.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    pub x: Vec<f64>,
    /// Indices into [`Problem::inequalities`], then on into [`Problem::bounds`].
    pub active: Vec<usize>,
}

/// How far outside a constraint still counts as on it, relative to its scale.
const TOLERANCE: f64 = 1e-9;

pub fn solve(p: &Problem) -> Result<Solution, QpError> {
    let n = p.linear.len();
    let shapes_agree = p.hessian.rows == n
        && p.hessian.cols == n
        && p.equalities
            .iter()
            .chain(&p.inequalities)
            .all(|c| c.a.len() == n)
        && p.bounds.iter().all(|b| b.variable < n);
    if !shapes_agree {
        return Err(QpError::Shape);
    }
    let finite = p
        .hessian
        .data
        .iter()
        .chain(&p.linear)
        .all(|v| v.is_finite())
        && p.equalities
            .iter()
            .chain(&p.inequalities)
            .all(|c| c.b.is_finite() && c.a.iter().all(|v| v.is_finite()))
        && p.bounds
            .iter()
            .all(|b| b.b.is_finite() && b.sign.is_finite());
    if !finite {
        return Err(QpError::Shape);
    }
    // Z's columns, the null space's basis, come as the rows of `zt`: every sum below
    // runs down a column of Z or HZ, so along memory.
    let (x0, zt) = null_space(n, &p.equalities)?;
    let k = zt.rows;
    // The reduced program in y: G = ZᵀHZ, c = Zᵀ(Hx₀ + g), rows aᵀZ ≥ b − aᵀx₀.
    let hx0: Vec<f64> = (0..n)
        .map(|r| (0..n).map(|c| p.hessian.at(r, c) * x0[c]).sum::<f64>() + p.linear[r])
        .collect();
    let hzt = product_transposed(&p.hessian, &zt);
    let mut g = Matrix::zeros(k, k);
    for i in 0..k {
        for j in 0..k {
            g.set(i, j, dot(zt.row(i), hzt.row(j)));
        }
    }
    let c: Vec<f64> = (0..k).map(|i| dot(zt.row(i), &hx0)).collect();
    // Most rows are a joint's bound (a `Bound`, or a row with a single entry): every
    // row's products run over its entries that are not zero (the same sums, in the same
    // order, whichever way a bound comes). The rows are held in one matrix: a program
    // has some sixty, solved thousands of times a motion.
    let mut entries = Vec::with_capacity(n);
    let count = p.inequalities.len() + p.bounds.len();
    let mut rows = Rows {
        a: Matrix::zeros(count, k),
        b: Vec::with_capacity(count),
    };
    for r in 0..count {
        entries.clear();
        let b = match p.inequalities.get(r) {
            Some(con) => {
                entries.extend((0..n).filter(|&j| con.a[j] != 0.0).map(|j| (j, con.a[j])));
                con.b
            }
            None => {
                let bound = p.bounds[r - p.inequalities.len()];
                if bound.sign != 0.0 {
                    entries.push((bound.variable, bound.sign));
                }
                bound.b
            }
        };
        let along = |v: &[f64]| entries.iter().map(|&(j, a)| a * v[j]).sum::<f64>();
        for i in 0..k {
            rows.a.set(r, i, along(zt.row(i)));
        }
        rows.b.push(b - along(&x0));
    }
    let (y, active) = dual_active_set(&g, &c, &rows)?;
    let x: Vec<f64> = (0..n)
        .map(|r| x0[r] + (0..k).map(|i| zt.at(i, r) * y[i]).sum::<f64>())
        .collect();
    Ok(Solution { x, active })
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// (AB)ᵀ, for B given as its transpose `bt`: each entry summed as A·B would sum it.
fn product_transposed(a: &Matrix, bt: &Matrix) -> Matrix {
    let mut out = Matrix::zeros(bt.rows, a.rows);
    for r in 0..a.rows {
        for k in 0..a.cols {
            let v = a.at(r, k);
            if v != 0.0 {
                for c in 0..bt.rows {
                    out.add(c, r, v * bt.at(c, k));
                }
            }
        }
    }
    out
}

/// A solution of the equalities and a basis of their null space, one basis vector per
/// row ((n − rank) × n: Zᵀ); an error where they contradict each other.
///
/// Gaussian elimination with complete pivoting: each step solves for the variable
/// whose coefficient is largest among the equalities left (so dependent equalities
/// leave only zeros behind, and are found rather than divided by). The variables not
/// solved for are free: x₀ sets them to zero, and Z's row for each is that variable at
/// one and the solved ones as the equalities then make them. The balance stage's
/// equalities are its planted paws' positions, a few sparse rows over some twenty
/// variables; with Householder QR and the whole Q formed instead, its rows took 11%
/// more instructions (the Bandai dance, `--gait off`), for the same motions.
fn null_space(n: usize, equalities: &[Constraint]) -> Result<(Vec<f64>, Matrix), QpError> {
    let m = equalities.len();
    // The equalities' rows and right-hand sides, reduced in place.
    let mut a = Matrix::zeros(m, n);
    let mut b: Vec<f64> = equalities.iter().map(|e| e.b).collect();
    for (r, e) in equalities.iter().enumerate() {
        a.row_mut(r).copy_from_slice(&e.a);
    }
    let scale = a
        .data
        .iter()
        .fold(0.0f64, |s, v| s.max(v.abs()))
        .max(1e-300);
    // `columns[..rank]` are the variables solved for, in the order of their steps.
    let mut columns: Vec<usize> = (0..n).collect();
    let mut rank = 0;
    for step in 0..m.min(n) {
        let mut best = (step, step, 0.0f64);
        for r in step..m {
            for (c, &col) in columns.iter().enumerate().skip(step) {
                let v = a.at(r, col).abs();
                if v > best.2 {
                    best = (r, c, v);
                }
            }
        }
        if best.2 <= 1e-10 * scale {
            break;
        }
        let (row, c, _) = best;
        if row != step {
            for k in 0..n {
                a.data.swap(row * n + k, step * n + k);
            }
            b.swap(row, step);
        }
        columns.swap(c, step);
        let pivot_col = columns[step];
        let pivot = a.at(step, pivot_col);
        for r in step + 1..m {
            let f = a.at(r, pivot_col) / pivot;
            if f == 0.0 {
                continue;
            }
            for k in 0..n {
                let v = a.at(step, k);
                if v != 0.0 {
                    a.add(r, k, -f * v);
                }
            }
            // Exactly zero, as back substitution reads it.
            a.set(r, pivot_col, 0.0);
            b[r] -= f * b[step];
        }
        rank += 1;
    }
    // The solved variables from the free ones' values `x` (those solved are
    // overwritten), by back substitution through the reduced rows: row i solves for
    // `columns[i]`, with `rhs[i]` on its right. Each row's other entries are held as
    // (column, coefficient), in column order: the rows are sparse (a paw's position
    // moves with the body and its own leg alone).
    let others: Vec<Vec<(usize, f64)>> = (0..rank)
        .map(|i| {
            let col = columns[i];
            a.row(i)
                .iter()
                .enumerate()
                .filter(|&(k, &v)| k != col && v != 0.0)
                .map(|(k, &v)| (k, v))
                .collect()
        })
        .collect();
    let back_substitute = |x: &mut [f64], rhs: &[f64]| {
        for i in (0..rank).rev() {
            let mut s = rhs[i];
            for &(k, v) in &others[i] {
                s -= v * x[k];
            }
            x[columns[i]] = s / a.at(i, columns[i]);
        }
    };
    let mut x0 = vec![0.0; n];
    back_substitute(&mut x0, &b);
    // The dependent ones must agree.
    for e in equalities {
        let residual = dot(&e.a, &x0) - e.b;
        let size = e.a.iter().fold(e.b.abs(), |s, v| s.max(v.abs())).max(1.0);
        if residual.abs() > 1e-7 * size {
            return Err(QpError::Infeasible);
        }
    }
    let zero = vec![0.0; rank];
    let mut zt = Matrix::zeros(n - rank, n);
    for (r, &free) in columns[rank..].iter().enumerate() {
        let row = zt.row_mut(r);
        row[free] = 1.0;
        back_substitute(row, &zero);
    }
    Ok((x0, zt))
}

/// The lower Cholesky factor of a symmetric positive definite matrix.
fn cholesky(a: &Matrix) -> Option<Matrix> {
    let n = a.rows;
    let mut l = Matrix::zeros(n, n);
    for j in 0..n {
        let d = a.at(j, j) - (0..j).map(|k| l.at(j, k).powi(2)).sum::<f64>();
        if d.is_nan() || d <= 0.0 || d.is_infinite() {
            return None;
        }
        let d = d.sqrt();
        l.set(j, j, d);
        for i in j + 1..n {
            let s = a.at(i, j) - (0..j).map(|k| l.at(i, k) * l.at(j, k)).sum::<f64>();
            l.set(i, j, s / d);
        }
    }
    Some(l)
}

/// Solves LLᵀx = b.
fn cholesky_solve(l: &Matrix, b: &[f64]) -> Vec<f64> {
    let n = l.rows;
    let mut y = vec![0.0; n];
    for i in 0..n {
        let s: f64 = (0..i).map(|k| l.at(i, k) * y[k]).sum();
        y[i] = (b[i] - s) / l.at(i, i);
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| l.at(k, i) * x[k]).sum();
        x[i] = (y[i] - s) / l.at(i, i);
    }
    x
}

/// Inequality rows aᵀy ≥ b: row i's a is `a`'s row i.
struct Rows {
    a: Matrix,
    b: Vec<f64>,
}

impl Rows {
    fn len(&self) -> usize {
        self.b.len()
    }

    /// aᵀy − b of row `i`.
    fn slack(&self, i: usize, y: &[f64]) -> f64 {
        dot(self.a.row(i), y) - self.b[i]
    }
}

/// Goldfarb and Idnani's method for min ½yᵀGy + cᵀy subject to `rows`: the solution
/// and its active rows.
fn dual_active_set(g: &Matrix, c: &[f64], rows: &Rows) -> Result<(Vec<f64>, Vec<usize>), QpError> {
    let k = c.len();
    let tolerances: Vec<f64> = (0..rows.len())
        .map(|i| {
            TOLERANCE
                * rows
                    .a
                    .row(i)
                    .iter()
                    .fold(rows.b[i].abs(), |s, v| s.max(v.abs()))
                    .max(1.0)
        })
        .collect();
    if k == 0 {
        // Nothing left to choose: the equalities fixed it.
        let y = Vec::new();
        return match (0..rows.len()).all(|i| rows.slack(i, &y) >= -tolerances[i]) {
            true => Ok((y, Vec::new())),
            false => Err(QpError::Infeasible),
        };
    }
    let l = cholesky(g).ok_or(QpError::NotConvex)?;
    let neg_c: Vec<f64> = c.iter().map(|v| -v).collect();
    let mut y = cholesky_solve(&l, &neg_c);
    let mut active = Active::default();
    let limit = 10 * (rows.len() + k) + 20;
    let mut steps = 0;
    loop {
        // The most violated row, by its own scale.
        let violated = (0..rows.len())
            .filter(|i| !active.rows.contains(i))
            .map(|i| (i, rows.slack(i, &y) / tolerances[i]))
            .filter(|&(_, s)| s < -1.0)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let Some((p, _)) = violated else {
            return Ok((y, active.rows));
        };
        let np = rows.a.row(p);
        let w = cholesky_solve(&l, np);
        let mut up = 0.0;
        loop {
            steps += 1;
            if steps > limit {
                return Err(QpError::NoProgress);
            }
            // r = M⁻¹Nᵀw with M = NᵀG⁻¹N; z = w − (G⁻¹N)r.
            let m = active.rows.len();
            let nw: Vec<f64> = active
                .rows
                .iter()
                .map(|&i| dot(rows.a.row(i), &w))
                .collect();
            let r: Vec<f64> = if m == 0 {
                Vec::new()
            } else {
                let mm = Matrix {
                    rows: m,
                    cols: m,
                    data: active.m.concat(),
                };
                match cholesky(&mm) {
                    Some(lm) => cholesky_solve(&lm, &nw),
                    None => return Err(QpError::NoProgress),
                }
            };
            let z: Vec<f64> = (0..k)
                .map(|i| w[i] - (0..m).map(|j| active.ginv[j][i] * r[j]).sum::<f64>())
                .collect();
            // The longest dual step before an active multiplier reaches zero.
            let blocking = (0..m)
                .filter(|&j| r[j] > 0.0)
                .map(|j| (j, active.u[j] / r[j]))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            let zn = dot(&z, np);
            let z_norm = dot(&z, &z).sqrt();
            let w_norm = dot(&w, &w).sqrt().max(1e-300);
            if z_norm <= 1e-12 * w_norm || zn <= 0.0 {
                // The row depends on the active ones: a dual step only.
                let Some((j, t)) = blocking else {
                    return Err(QpError::Infeasible);
                };
                for (uj, rj) in active.u.iter_mut().zip(&r) {
                    *uj -= t * rj;
                }
                up += t;
                active.leave(j);
                continue;
            }
            let full = -rows.slack(p, &y) / zn;
            let (t, drop) = match blocking {
                Some((j, t)) if t < full => (t, Some(j)),
                _ => (full, None),
            };
            for (yi, zi) in y.iter_mut().zip(&z) {
                *yi += t * zi;
            }
            for (uj, rj) in active.u.iter_mut().zip(&r) {
                *uj -= t * rj;
            }
            up += t;
            match drop {
                Some(j) => active.leave(j),
                None => {
                    active.join(p, np, w, nw, up);
                    break;
                }
            }
        }
    }
}

/// The active rows of [`dual_active_set`] (indices into its `rows`), G⁻¹ times each,
/// their multipliers, and M = NᵀG⁻¹N over them, kept as rows join and leave (its entries
/// do not change while they stay).
#[derive(Default)]
struct Active {
    rows: Vec<usize>,
    ginv: Vec<Vec<f64>>,
    u: Vec<f64>,
    m: Vec<Vec<f64>>,
}

impl Active {
    /// Row `p` (its `a`, and `w` = G⁻¹a) joins with multiplier `u`; `nw` is Nᵀw over the
    /// rows already active, M's new column.
    fn join(&mut self, p: usize, a: &[f64], w: Vec<f64>, nw: Vec<f64>, u: f64) {
        for (row, v) in self.m.iter_mut().zip(nw) {
            row.push(v);
        }
        let mut last: Vec<f64> = self.ginv.iter().map(|gj| dot(a, gj)).collect();
        last.push(dot(a, &w));
        self.m.push(last);
        self.rows.push(p);
        self.ginv.push(w);
        self.u.push(u);
    }

    /// The `j`th active row leaves.
    fn leave(&mut self, j: usize) {
        self.rows.remove(j);
        self.ginv.remove(j);
        self.u.remove(j);
        self.m.remove(j);
        for row in self.m.iter_mut() {
            row.remove(j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(n: usize) -> Matrix {
        let mut m = Matrix::zeros(n, n);
        for i in 0..n {
            m.set(i, i, 1.0);
        }
        m
    }

    #[test]
    fn the_nearest_point_of_a_half_plane_is_its_projection() {
        // min |x - (2, 2)|² subject to x + y ≤ 2 (−x − y ≥ −2): (1, 1).
        let p = Problem {
            hessian: identity(2),
            linear: vec![-2.0, -2.0],
            equalities: Vec::new(),
            inequalities: vec![Constraint {
                a: vec![-1.0, -1.0],
                b: -2.0,
            }],
            bounds: Vec::new(),
        };
        let s = solve(&p).unwrap();
        assert!((s.x[0] - 1.0).abs() < 1e-12 && (s.x[1] - 1.0).abs() < 1e-12);
        assert_eq!(s.active, [0]);
    }

    #[test]
    fn equalities_are_held_and_dependent_ones_are_found() {
        // min |x|² subject to x + y + z = 3, and the same equality twice: (1, 1, 1).
        let e = Constraint {
            a: vec![1.0, 1.0, 1.0],
            b: 3.0,
        };
        let p = Problem {
            hessian: identity(3),
            linear: vec![0.0; 3],
            equalities: vec![e.clone(), e.clone()],
            inequalities: Vec::new(),
            bounds: Vec::new(),
        };
        let s = solve(&p).unwrap();
        for v in &s.x {
            assert!((v - 1.0).abs() < 1e-12, "{:?}", s.x);
        }
        // The same again, but contradicting.
        let mut q = p.clone();
        q.equalities[1].b = 4.0;
        assert_eq!(solve(&q), Err(QpError::Infeasible));
    }

    #[test]
    fn contradicting_inequalities_are_infeasible_and_bad_shapes_refused() {
        let p = Problem {
            hessian: identity(1),
            linear: vec![0.0],
            equalities: Vec::new(),
            bounds: Vec::new(),
            inequalities: vec![
                Constraint {
                    a: vec![1.0],
                    b: 1.0,
                },
                Constraint {
                    a: vec![-1.0],
                    b: 0.0,
                },
            ],
        };
        assert_eq!(solve(&p), Err(QpError::Infeasible));
        let mut q = p.clone();
        q.linear.push(0.0);
        assert_eq!(solve(&q), Err(QpError::Shape));
        let mut q = p;
        q.hessian.set(0, 0, -1.0);
        q.inequalities.clear();
        assert_eq!(solve(&q), Err(QpError::NotConvex));
    }
}
