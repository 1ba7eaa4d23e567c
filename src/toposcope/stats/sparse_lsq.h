// stats/sparse_lsq: weighted sparse linear least squares
//     x = argmin ‖W^½ (A x − b)‖² + damping² ‖x‖²,   W = diag(row_weights)
// for tall sparse A (a million rows, ~100k columns) without ever forming an m×m (or dense n×n)
// matrix. Two solvers: LSQR (Paige & Saunders 1982, on W^½A — the default, numerically the
// safer one) and CG on the normal equations (CGLS form: AᵀWA is applied as Aᵀ(W(Ax)), never
// built). Optional column scaling (each column to unit W-norm, i.e. Jacobi preconditioning of
// AᵀWA) speeds convergence a lot on incidence matrices whose columns are crossed by very
// different numbers of rows. Started from x = 0, both return the minimum-norm solution (in the
// scaled variables) when A is rank deficient and the system is consistent. Deterministic: no
// threads, no randomness; the same input gives bit-identical output.
#pragma once

#include <Eigen/Sparse>
#include <string>

namespace toposcope::stats {

// Row-major so that A·x streams over rows; Aᵀ·y is computed by scattering the same rows.
using SparseRowMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor>;

enum class LsqMethod { kLsqr, kCgNormal };

struct SparseLsqOptions {
  LsqMethod method = LsqMethod::kLsqr;
  int max_iterations = 10000;
  // Stops when ‖Âᵀ r̂‖ ≤ tolerance · ‖Â‖_F · ‖r̂‖ (LSQR's atol test; the scaled normal-equation
  // residual, so inconsistent systems converge too) or when ‖r̂‖ ≤ tolerance · ‖b̂‖ (consistent
  // system solved). Â, r̂, b̂: the weighted (and column-scaled) matrix, residual and right side.
  double tolerance = 1e-10;
  double damping = 0;          // λ ≥ 0: Tikhonov term λ²‖x‖² (in the scaled variables)
  bool column_scaling = true;  // scale each column to unit weighted norm before solving
};

struct SparseLsqResult {
  Eigen::VectorXd x;            // the solution in the caller's (unscaled) variables; 0 for empty columns
  int iterations = 0;
  bool converged = false;       // a stopping test was met before max_iterations
  double residual_norm = 0;     // ‖W^½(Ax − b)‖
  double rhs_norm = 0;          // ‖W^½ b‖
  double relative_residual = 0; // residual_norm / rhs_norm (0 when b = 0)
  double normal_residual = 0;   // ‖Âᵀ r̂‖ / (‖Â‖_F ‖r̂‖) at the end (0 when r̂ = 0)
  std::string method;           // "lsqr" or "cg-normal", with "+colscale" / "+damp" suffixes
};

// Solves the weighted least-squares problem above. `row_weights` holds W's diagonal (size rows,
// all ≥ 0) or is empty for W = I. Returns an all-zero x (iterations 0) when A has no rows or
// columns or b = 0; non-finite entries in b or the weights are treated as 0 (the row drops out).
// Never throws; a dimension mismatch gives an empty x and method "error: ...".
SparseLsqResult SolveSparseLeastSquares(const SparseRowMatrix& a, const Eigen::VectorXd& b,
                                        const Eigen::VectorXd& row_weights = {},
                                        const SparseLsqOptions& opt = {});

}  // namespace toposcope::stats
