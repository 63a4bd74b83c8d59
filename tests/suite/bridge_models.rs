//! The bridge's model tables (generated from profiles/*.toml at build time) agree with
//! the host's profiles: the guard and `check` judge a motion by the same numbers.

use aibo_motion::robot::profile::Profile;
use firmware_bridge::Model;

#[test]
fn every_profile_has_a_bridge_model_with_the_same_joints_limits_speeds_and_postures() {
    for p in Profile::builtins() {
        let m = Model::find(&p.design_label)
            .unwrap_or_else(|| panic!("no bridge model for {}", p.model));
        assert_eq!(m.name, p.model);
        assert_eq!(m.joints.len(), p.joints.len(), "{}", p.model);
        for (bj, pj) in m.joints.iter().zip(&p.joints) {
            assert_eq!(
                (bj.name, bj.locator),
                (pj.name.as_str(), pj.locator.as_str())
            );
            assert_eq!(bj.binary, pj.binary, "{}", pj.name);
            assert_eq!(bj.values, pj.values.as_slice(), "{}", pj.name);
            if let Some(limits) = &pj.limits {
                assert_eq!((bj.min, bj.max), limits.urad(), "{}", pj.name);
            }
            let step = pj.max_speed.map_or(0, |s| (s * 1e6 * 0.008).ceil() as u32);
            assert_eq!(bj.max_step, step, "{}", pj.name);
        }
        for (name, posture) in &p.postures {
            let angles: Vec<i32> = posture
                .joints
                .iter()
                .map(|&r| aibo_motion::units::rad_to_urad(r))
                .collect();
            assert_eq!(
                m.posture(name).unwrap().angles,
                angles.as_slice(),
                "{} {name}",
                p.model
            );
        }
    }
}
