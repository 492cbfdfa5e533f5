//! JavaScript-exact math. V8 implements `Math.log` with fdlibm's `__ieee754_log`, which is
//! not always correctly rounded; Rust's `f64::ln` (the platform libm) can differ by one ulp.
//! BM25 idf values feed exact-tie ordering and `minScore` boundaries, so we use the same
//! algorithm as V8 to get bit-identical scores.

// The fdlibm constants are written with their published digits; keep them verbatim.
#![allow(clippy::excessive_precision)]

const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-01;
const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;
const TWO54: f64 = 1.801_439_850_948_198_400_00e16;
const LG1: f64 = 6.666_666_666_666_735_130e-01;
const LG2: f64 = 3.999_999_999_940_941_908e-01;
const LG3: f64 = 2.857_142_874_366_239_149e-01;
const LG4: f64 = 2.222_219_843_214_978_396e-01;
const LG5: f64 = 1.818_357_216_161_805_012e-01;
const LG6: f64 = 1.531_383_769_920_937_332e-01;
const LG7: f64 = 1.479_819_860_511_658_591e-01;

#[inline]
fn high_word(x: f64) -> i32 {
    (x.to_bits() >> 32) as u32 as i32
}

#[inline]
fn low_word(x: f64) -> u32 {
    x.to_bits() as u32
}

#[inline]
fn with_high_word(x: f64, hi: i32) -> f64 {
    f64::from_bits(((hi as u32 as u64) << 32) | (x.to_bits() & 0xffff_ffff))
}

/// Natural logarithm with the same result bits as V8's `Math.log`.
pub fn js_log(mut x: f64) -> f64 {
    let mut hx = high_word(x);
    let lx = low_word(x);
    let mut k: i32 = 0;
    if hx < 0x0010_0000 {
        if ((hx & 0x7fff_ffff) as u32 | lx) == 0 {
            return f64::NEG_INFINITY;
        }
        if hx < 0 {
            return f64::NAN;
        }
        // Subnormal: scale up.
        k -= 54;
        x *= TWO54;
        hx = high_word(x);
    }
    if hx >= 0x7ff0_0000 {
        return x + x;
    }
    k += (hx >> 20) - 1023;
    hx &= 0x000f_ffff;
    let i = (hx + 0x95f64) & 0x0010_0000;
    x = with_high_word(x, hx | (i ^ 0x3ff0_0000));
    k += i >> 20;
    let f = x - 1.0;
    if (0x000f_ffff & (2 + hx)) < 3 {
        if f == 0.0 {
            if k == 0 {
                return 0.0;
            }
            let dk = k as f64;
            return dk * LN2_HI + dk * LN2_LO;
        }
        let r = f * f * (0.5 - 0.333_333_333_333_333_33 * f);
        if k == 0 {
            return f - r;
        }
        let dk = k as f64;
        return dk * LN2_HI - ((r - dk * LN2_LO) - f);
    }
    let s = f / (2.0 + f);
    let dk = k as f64;
    let z = s * s;
    let mut i = hx - 0x6147a;
    let w = z * z;
    let j = 0x6b851 - hx;
    let t1 = w * (LG2 + w * (LG4 + w * LG6));
    let t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    i |= j;
    let r = t2 + t1;
    if i > 0 {
        let hfsq = 0.5 * f * f;
        if k == 0 {
            f - (hfsq - s * (hfsq + r))
        } else {
            dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f)
        }
    } else if k == 0 {
        f - s * (f - r)
    } else {
        dk * LN2_HI - ((s * (f - r) - dk * LN2_LO) - f)
    }
}

/// `Math.round(x * 100) / 100` as JavaScript computes it (round half up).
pub fn js_round2(x: f64) -> f64 {
    let y = x * 100.0;
    let r = (y + 0.5).floor();
    // Math.round returns x itself when x + 0.5 would round across an integer boundary
    // for values like 0.49999999999999994; guard the same way.
    let r = if r - y > 0.5 { r - 1.0 } else { r };
    r / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_values() {
        assert_eq!(js_log(1.0), 0.0);
        assert!(js_log(0.0).is_infinite() && js_log(0.0) < 0.0);
        assert!(js_log(-1.0).is_nan());
        assert!(js_log(f64::INFINITY).is_infinite());
        assert!((js_log(std::f64::consts::E) - 1.0).abs() < 1e-15);
    }

    #[test]
    fn close_to_platform_ln() {
        // fdlibm is within 1 ulp of the correctly rounded result.
        let mut x = 1e-300;
        while x < 1e300 {
            let a = js_log(x);
            let b = x.ln();
            assert!((a - b).abs() <= b.abs() * 4e-16 + 1e-300, "x={x} {a} {b}");
            x *= 1.37;
        }
    }

    #[test]
    fn matches_v8_bits() {
        // (x, Math.log(x) bits) pairs printed by Node 20 (V8).
        for (x, bits) in crate::jsmath::tests::V8_LOG_SAMPLES {
            assert_eq!(js_log(*x).to_bits(), *bits, "x={x}");
        }
    }

    pub(crate) const V8_LOG_SAMPLES: &[(f64, u64)] = &[
        (2.0000000000000000_f64, 0x3fe62e42fefa39ef),
        (3.0000000000000000_f64, 0x3ff193ea7aad030a),
        (7.0000000000000000_f64, 0x3fff2272ae325a57),
        (1.5000000000000000_f64, 0x3fd9f323ecbf984c),
        (1.0001000000000000_f64, 0x3f1a368d0657fcd4),
        (0.50000000000000000_f64, 0xbfe62e42fefa39ef),
        (10.000000000000000_f64, 0x40026bb1bbb55516),
        (100.00000000000000_f64, 0x40126bb1bbb55516),
        (1.0000000000000000e-10_f64, 0xc037069e2aa2aa5b),
        (123456.78900000000_f64, 0x40277281cad8a844),
        (2.0794415416798357_f64, 0x3fe76d5ba76b5045),
        (1.8999999999999999_f64, 0x3fe48a11293d785b),
        (1.3999999999999999_f64, 0x3fd588c2d913348e),
        (1.2000000000000000_f64, 0x3fc7565011e49675),
        (5.5000000000000000_f64, 0x3ffb46a5ef8151a0),
        (8.1229999999999993_f64, 0x4000c1f1d5a5c5ff),
        (133.33333333333334_f64, 0x40139247dcc8a2cf),
        (80.000000000000000_f64, 0x40118731fd788044),
        (57.142857142857146_f64, 0x40102ea5cfe74cfc),
        (44.444444444444443_f64, 0x400e5a9a7c3ac418),
        (36.363636363636367_f64, 0x400cbfa13f688fd7),
        (30.769230769230770_f64, 0x400b6980cbb63ad2),
        (26.666666666666668_f64, 0x400a446ebd9a7f04),
        (23.529411764705884_f64, 0x4009441934ed47a9),
        (21.052631578947370_f64, 0x4008604ef0e313f6),
        (19.047619047619047_f64, 0x4007935662781872),
        (17.391304347826086_f64, 0x4006d906f9161332),
        (16.000000000000000_f64, 0x40062e42fefa39ef),
        (14.814814814814815_f64, 0x400590a53ee44293),
        (13.793103448275861_f64, 0x4004fe4c2b19c904),
        (12.903225806451612_f64, 0x400475b6ae569bc9),
        (12.121212121212121_f64, 0x4003f5ac02120e52),
        (11.428571428571429_f64, 0x40037d2aa3d7d35d),
        (10.810810810810811_f64, 0x40030b5c08acff65),
        (10.256410256410257_f64, 0x40029f8b8e5fb94c),
        (9.7560975609756095_f64, 0x4002391fb1591ad5),
        (9.3023255813953494_f64, 0x4001d794e0d2db12),
        (8.8888888888888893_f64, 0x40017a798043fd7e),
        (8.5106382978723403_f64, 0x4001216ac756d66c),
        (8.1632653061224492_f64, 0x4000cc1248b56ccb),
        (7.8431372549019605_f64, 0x40007a23f796c623),
        (7.5471698113207548_f64, 0x40002b5c8ec58a78),
        (7.2727272727272725_f64, 0x3fffbf0086e3927a),
        (7.0175438596491224_f64, 0x3fff2cb3671924e2),
        (6.7796610169491522_f64, 0x3ffe9f7206b2e862),
        (6.5573770491803280_f64, 0x3ffe16e64185de12),
        (6.3492063492063489_f64, 0x3ffd92c24a432dd8),
        (6.1538461538461542_f64, 0x3ffd12bf9f7ee870),
        (5.9701492537313436_f64, 0x3ffc969e292f4990),
        (5.7971014492753623_f64, 0x3ffc1e23777f235a),
        (5.6338028169014081_f64, 0x3ffba91a1d3c3321),
        (5.4794520547945202_f64, 0x3ffb37512146ceac),
        (5.3333333333333330_f64, 0x3ffac89b834770d4),
        (5.1948051948051948_f64, 0x3ffa5ccfd09ec556),
        (5.0632911392405067_f64, 0x3ff9f3c7c710c87a),
        (4.9382716049382722_f64, 0x3ff98d60031b821c),
        (266.69333333333333_f64, 0x4016582a7334f065),
        (134.24161073825502_f64, 0x4013993b8dbb1094),
        (89.695067264573993_f64, 0x4011fc546acddd8b),
        (67.346801346801342_f64, 0x4010d6e4561599d3),
        (53.913746630727765_f64, 0x400fe62a5c7285ac),
        (44.948314606741576_f64, 0x400e71b0f05a12fc),
        (38.539499036608866_f64, 0x400d36a5ecce78f0),
        (33.730185497470487_f64, 0x400c25ab4e9b8e02),
        (29.988005997001498_f64, 0x400b34d5520e3d73),
        (26.993252361673413_f64, 0x400a5d5cad212e7f),
        (24.542331288343558_f64, 0x40099a6b04c37df2),
        (22.499437570303712_f64, 0x4008e86d9bd465d2),
        (20.770508826583594_f64, 0x400844ad8b825dc0),
        (19.288331726133077_f64, 0x4007ad0e838e97ee),
        (18.003600360036003_f64, 0x40071fe415f743d5),
        (16.879324894514767_f64, 0x40069bd4cf01447d),
        (15.887212073073869_f64, 0x40061fc612c07ef0),
        (15.005251312828207_f64, 0x4005aacdbd07d817),
        (14.216062544420753_f64, 0x40053c27a4ee1e76),
        (13.505739365293721_f64, 0x4004d32dd138ff52),
        (12.863022508038584_f64, 0x40046f5293da2e36),
        (12.278698588090853_f64, 0x4004101c0473ce22),
        (11.745155607751027_f64, 0x4003b5207c36d26c),
        (11.256049521665728_f64, 0x40035e03d15b8dc7),
        (10.806050783360346_f64, 0x40030a7523415f7b),
        (10.390649350649351_f64, 0x4002ba2d1527fdd7),
        (10.006003001500750_f64, 0x40026cec5e74f725),
        (9.6488181379643034_f64, 0x4002227a9dd95ef1),
        (9.3162552398695855_f64, 0x4001daa56142359e),
    ];
}
