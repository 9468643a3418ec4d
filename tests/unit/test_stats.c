/*
 * Student's t (twintorus/stats.h) against published table values (the
 * two-sided critical values every statistics text tabulates, to three
 * decimals) and against closed forms of the incomplete beta function; the
 * trend fit of the steady-state test against a published regression and
 * exact lines.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "twintorus/stats.h"

static void
assert_near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.9g, want %.9g (within %g)", got, want, tol);
}

static void
test_beta_closed_forms(void **state)
{
	double x;

	(void)state;
	for (x = 0; x <= 1.0001; x += 0.125) {
		assert_near(tt_beta_inc(1, 1, x), x, 1e-14);        /* uniform */
		assert_near(tt_beta_inc(3, 1, x), x * x * x, 1e-14);
		assert_near(tt_beta_inc(1, 2, x), 1 - (1 - x) * (1 - x), 1e-14);
		assert_near(tt_beta_inc(2.5, 4, x) + tt_beta_inc(4, 2.5, 1 - x),
		    1, 1e-14);                                  /* symmetry */
	}
	assert_near(tt_beta_inc(7, 7, 0.5), 0.5, 1e-14);
	/* I_x(1/2, 1/2) = 2 asin(sqrt x) / pi */
	assert_near(tt_beta_inc(0.5, 0.5, 0.3), 2 * asin(sqrt(0.3)) / M_PI,
	    1e-13);
	assert_true(isnan(tt_beta_inc(0, 1, 0.5)));
	assert_true(isnan(tt_beta_inc(1, 1, 1.5)));
}

/* t with one degree of freedom is Cauchy: P(T <= t) = 1/2 + atan(t)/pi. */
static void
test_cdf(void **state)
{
	double t;

	(void)state;
	for (t = -20; t <= 20; t += 0.75)
		assert_near(tt_t_cdf(t, 1), 0.5 + atan(t) / M_PI, 1e-13);
	/* two degrees: 1/2 + t / (2 sqrt(2 + t^2)) */
	for (t = -20; t <= 20; t += 0.75)
		assert_near(tt_t_cdf(t, 2), 0.5 + t / (2 * sqrt(2 + t * t)),
		    1e-13);
	assert_near(tt_t_cdf(0, 17), 0.5, 1e-15);
}

/* Two-sided 95% critical values, as tables print them. */
static void
test_quantile_table(void **state)
{
	static const struct {
		double df, t;
	} tab[] = {
		{1, 12.706}, {2, 4.303}, {3, 3.182}, {4, 2.776}, {5, 2.571},
		{10, 2.228}, {20, 2.086}, {29, 2.045}, {30, 2.042}, {40, 2.021},
		{60, 2.000}, {120, 1.980}, {1000, 1.962},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		assert_near(tt_t_quantile(0.975, tab[i].df), tab[i].t, 5e-4);
	/* one-sided 95% and two-sided 99% rows */
	assert_near(tt_t_quantile(0.95, 1), 6.314, 5e-4);
	assert_near(tt_t_quantile(0.95, 10), 1.812, 5e-4);
	assert_near(tt_t_quantile(0.995, 10), 3.169, 5e-4);
	assert_near(tt_t_quantile(0.995, 60), 2.660, 5e-4);
	/* toward the normal: 1.959964 */
	assert_near(tt_t_quantile(0.975, 1e7), 1.959964, 1e-5);
	/* exact where the CDF has a closed form: Cauchy, tan(pi (p - 1/2)) */
	assert_near(tt_t_quantile(0.975, 1), tan(M_PI * 0.475), 1e-9);
	assert_near(tt_t_quantile(0.025, 5), -tt_t_quantile(0.975, 5), 1e-12);
	assert_true(isnan(tt_t_quantile(1, 5)));
}

/*
 * Anscombe's first data set (Anscombe, Graphs in statistical analysis,
 * 1973): the fitted line is y = 3.0001 + 0.5001 x, the slope's standard
 * error 0.1179 (t = 4.24), the mean of y 7.5009; x spans 4..14.
 */
static void
test_trend_anscombe(void **state)
{
	static const double x[11] = {10, 8, 13, 9, 11, 14, 6, 4, 12, 7, 5};
	static const double y[11] = {8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24,
	    4.26, 10.84, 4.82, 5.68};
	tt_trend tr;

	(void)state;
	tt_trend_fit(x, y, 11, &tr);
	assert_near(tr.mean, 7.5009, 1e-4);
	assert_near(tr.drift, 0.5001 * 10 / 7.5009, 1e-3);
	assert_near(tr.t, 0.5001 / 0.1179, 0.01);
	/* significant beyond t(0.995, 9) = 3.250 and far above 5%: a trend */
	assert_false(tt_trend_steady(&tr, 0.05, tt_t_quantile(0.995, 9)));
	/* significant but within a tolerance as wide as its drift: steady */
	assert_true(tt_trend_steady(&tr, 0.7, tt_t_quantile(0.995, 9)));
}

/* Lines without noise, and noise without a line. */
static void
test_trend_exact(void **state)
{
	double x[20], y[20];
	tt_trend tr;
	int i;

	(void)state;
	for (i = 0; i < 20; i++) {
		x[i] = i;
		y[i] = 10 + 0.5 * i;
	}
	tt_trend_fit(x, y, 20, &tr);
	assert_near(tr.mean, 14.75, 1e-12);
	assert_near(tr.drift, 0.5 * 19 / 14.75, 1e-12);
	assert_true(isinf(tr.t) && tr.t > 0);
	assert_false(tt_trend_steady(&tr, 0.05, 2.88));
	/* the same rise of 1% of the mean is exact, but below tolerance */
	for (i = 0; i < 20; i++)
		y[i] = 100 + (1.0 / 19) * i;
	tt_trend_fit(x, y, 20, &tr);
	assert_near(tr.drift, 1 / tr.mean, 1e-12);
	assert_true(tt_trend_steady(&tr, 0.02, 2.88));
	/* a palindrome has no slope at all, however it scatters */
	for (i = 0; i < 10; i++)
		y[i] = y[19 - i] = 50 + 7 * (i % 3);
	tt_trend_fit(x, y, 20, &tr);
	assert_near(tr.drift, 0, 1e-12);
	assert_near(tr.t, 0, 1e-9);
	assert_true(tt_trend_steady(&tr, 0.02, 2.88));
	/* too few points for a slope, or for its error */
	tt_trend_fit(x, y, 1, &tr);
	assert_near(tr.drift, 0, 0);
	tt_trend_fit(x, y, 2, &tr);
	assert_near(tr.t, 0, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_beta_closed_forms),
		cmocka_unit_test(test_cdf),
		cmocka_unit_test(test_quantile_table),
		cmocka_unit_test(test_trend_anscombe),
		cmocka_unit_test(test_trend_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
