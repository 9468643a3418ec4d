/*
 * twintorus: the statistics the tools report with their means: Student's
 * t distribution, for the confidence interval of a mean over a few seeds,
 * and the trend of a series of batch means, for the steady-state test.
 */
#ifndef TWINTORUS_STATS_H
#define TWINTORUS_STATS_H

#include "twintorus/api.h"

TT_BEGIN_DECLS

/* The regularized incomplete beta function I_x(a, b), a, b > 0, x in
 * [0, 1]; NaN outside. */
double tt_beta_inc(double a, double b, double x);
/* P(T <= t) for Student's t with df > 0 degrees of freedom. */
double tt_t_cdf(double t, double df);
/* The t with P(T <= t) = p, 0 < p < 1: 0.975 gives the factor of a
 * two-sided 95% interval. */
double tt_t_quantile(double p, double df);

/*
 * A least-squares line through the points (x[i], y[i]), i < n: the mean of
 * y, the line's change over the span of x relative to that mean (drift;
 * 0 when the mean is 0), and the slope over its standard error (t; 0 for
 * fewer than three points, and infinite when the points lie on a line
 * that is not flat).
 */
typedef struct tt_trend {
	double mean, drift, t;
} tt_trend;
void tt_trend_fit(const double *x, const double *y, int n, tt_trend *out);
/* A series is steady unless its drift exceeds tol (relative) and its slope
 * is significant: |t| above tcrit (t(0.975, n - 2) for a 95% test). */
int tt_trend_steady(const tt_trend *tr, double tol, double tcrit);

TT_END_DECLS

#endif
