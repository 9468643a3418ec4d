/*
 * Student's t distribution (twintorus/stats.h).  The CDF comes from the
 * regularized incomplete beta function,
 *     P(T <= t) = 1 - I_x(df/2, 1/2) / 2,  x = df / (df + t^2),  t >= 0,
 * evaluated by its continued fraction (Abramowitz and Stegun 26.5.8), and
 * the quantile inverts the CDF by bisection, which needs nothing but the
 * CDF being increasing.
 */
#include <math.h>

#include "twintorus/stats.h"

#define CF_ITERATIONS 400
#define CF_EPS        1e-16
#define CF_TINY       1e-300

/* Guard a denominator of Lentz's method against 0. */
static double
lentz_guard(double v)
{
	return fabs(v) < CF_TINY ? CF_TINY : v;
}

/*
 * The continued fraction of I_x(a, b) / (x^a (1-x)^b / (a B(a, b))):
 * 1 / (1 + d1 / (1 + d2 / (1 + ...))) with
 *     d(2m+1) = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)),
 *     d(2m)   = m (b - m) x / ((a + 2m - 1)(a + 2m)),
 * by the modified Lentz method.  It converges fast for
 * x < (a + 1) / (a + b + 2).
 */
static double
beta_fraction(double a, double b, double x)
{
	double c = 1, d, f, num, delta;
	int m;

	d = 1 / lentz_guard(1 - (a + b) * x / (a + 1));
	f = d;
	for (m = 1; m <= CF_ITERATIONS; m++) {
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 / lentz_guard(1 + num * d);
		c = lentz_guard(1 + num / c);
		f *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 / lentz_guard(1 + num * d);
		c = lentz_guard(1 + num / c);
		delta = d * c;
		f *= delta;
		if (fabs(delta - 1) < CF_EPS)
			break;
	}
	return f;
}

/* ln |Gamma(x)| without lgamma()'s write to the global signgam, which
 * threads running the engine at once would share */
static double
lgam(double x)
{
	int sign;

	return lgamma_r(x, &sign);
}

double
tt_beta_inc(double a, double b, double x)
{
	double front;

	if (!(a > 0 && b > 0 && x >= 0 && x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	front = exp(a * log(x) + b * log1p(-x) -
	    (lgam(a) + lgam(b) - lgam(a + b)));
	/* the fraction converges on the side of the mean; I_x(a, b) =
	 * 1 - I_{1-x}(b, a) gives the other */
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double
tt_t_cdf(double t, double df)
{
	double tail;

	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	tail = tt_beta_inc(df / 2, 0.5, df / (df + t * t)) / 2;
	return t >= 0 ? 1 - tail : tail;
}

double
tt_t_quantile(double p, double df)
{
	double lo = 0, hi = 1, mid;
	int i;

	if (!(p > 0 && p < 1 && df > 0))
		return NAN;
	if (p < 0.5)
		return -tt_t_quantile(1 - p, df);
	while (tt_t_cdf(hi, df) < p && hi < 1e300)
		hi *= 2;
	/* 200 halvings take any bracket below a double's precision */
	for (i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
		mid = (lo + hi) / 2;
		if (tt_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void
tt_trend_fit(const double *x, const double *y, int n, tt_trend *out)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, sse = 0, b, r, lo, hi;
	int i;

	out->mean = out->drift = out->t = 0;
	if (n < 1)
		return;
	for (i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= n;
	my /= n;
	out->mean = my;
	if (n < 2)
		return;
	lo = hi = x[0];
	for (i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
		if (x[i] < lo)
			lo = x[i];
		if (x[i] > hi)
			hi = x[i];
	}
	if (sxx <= 0)
		return;
	b = sxy / sxx;
	if (my != 0)
		out->drift = b * (hi - lo) / fabs(my);
	if (n < 3)
		return;
	for (i = 0; i < n; i++) {
		r = y[i] - my - b * (x[i] - mx);
		sse += r * r;
	}
	if (sse <= 0)
		out->t = b == 0 ? 0 : (b > 0 ? INFINITY : -INFINITY);
	else
		out->t = b / sqrt(sse / (n - 2) / sxx);
}

int
tt_trend_steady(const tt_trend *tr, double tol, double tcrit)
{
	return !(fabs(tr->drift) > tol && fabs(tr->t) > tcrit);
}
