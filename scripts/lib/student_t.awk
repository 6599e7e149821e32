# t975(nu): the Student-t quantile t_{0.975, nu}, for 95% intervals of means
# and fitted slopes in the figure scripts (awk -f scripts/lib/student_t.awk
# -f PROGRAM). The table and the expansion are those of framework/src/stats.c,
# shard's own statistics (statistics.csv), so that scripts and campaigns agree.
function t975(nu,    z, z2, g1, g2, g3, g4) {
  if (nu < 1) return "nan"
  if (nu <= 30) {
    if (!_t975_n)
      _t975_n = split("12.706204736174698 4.302652729749464 3.182446305284263 2.776445105197793 " \
                      "2.570581835636314 2.446911851144969 2.364624251592785 2.306004135204166 " \
                      "2.262157162798205 2.228138851986274 2.200985160082949 2.178812829667228 " \
                      "2.160368656461013 2.144786687917804 2.131449545559774 2.119905299221255 " \
                      "2.109815577833317 2.100922040241036 2.093024054408307 2.085963447265865 " \
                      "2.079613844727662 2.073873067904015 2.068657610419041 2.063898561628021 " \
                      "2.059538552753294 2.055529438642871 2.051830516480283 2.048407141795244 " \
                      "2.045229642132703 2.042272456301238", _t975, " ")
    return _t975[nu]
  }
  # Cornish-Fisher expansion about the normal quantile
  z = 1.959963984540054; z2 = z * z
  g1 = (z2 + 1) * z / 4
  g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
  g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
  g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
  return z + (g1 + (g2 + (g3 + g4 / nu) / nu) / nu) / nu
}

# ci95(s, s2, m): the half-width of the 95% Student-t interval of the mean of
# m values given their sum s and sum of squares s2 (0 for m < 2)
function ci95(s, s2, m,    mean, var) {
  if (m < 2) return 0
  mean = s / m; var = (s2 - m * mean * mean) / (m - 1)
  return t975(m - 1) * sqrt((var > 0 ? var : 0) / m)
}
