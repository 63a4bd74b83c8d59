// Temporary probe (not committed): prints stances of a motion at some times.
use aibo_motion::balance::{stances, Body};
use aibo_motion::robot::profile::Profile;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&args[1]).unwrap();
    let m = aibo_motion::mtn::decode(&bytes).unwrap().motion;
    let p = Profile::for_design_label(&m.design_label).unwrap();
    let s = stances(&m, &p).unwrap();
    let body = Body::of(&p).unwrap();
    let _ = body;
    for t in args[2..].iter() {
        let i: usize = (t.parse::<f64>().unwrap() * 125.0) as usize;
        let st = &s[i.min(s.len() - 1)];
        println!(
            "t={t}: margin {:.1} tilt {:.1} dir {:?} dyn {} com {:?} on {:?}\n  support {:?}",
            st.margin_mm, st.tilt_deg, st.direction, st.dynamic, st.com, st.resting_on, st.support
        );
    }
}
