/*
 * twintorus: the statistics the tools report with their means: Student's
 * t distribution, for the confidence interval of a mean over a few seeds.
 */
#ifndef TWINTORUS_STATS_H
#define TWINTORUS_STATS_H

#include "twintorus/api.h"

TT_BEGIN_DECLS

#ifdef __cplusplus
extern "C" {
#endif

/* The regularized incomplete beta function I_x(a, b), a, b > 0, x in
 * [0, 1]; NaN outside. */
double tt_beta_inc(double a, double b, double x);
/* P(T <= t) for Student's t with df > 0 degrees of freedom. */
double tt_t_cdf(double t, double df);
/* The t with P(T <= t) = p, 0 < p < 1: 0.975 gives the factor of a
 * two-sided 95% interval. */
double tt_t_quantile(double p, double df);

#ifdef __cplusplus
}
#endif

TT_END_DECLS

#endif
