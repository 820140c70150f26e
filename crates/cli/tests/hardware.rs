//! The hardware of issue 23 through the binary: AMD Instinct on xGMI with RCCL, AWS EFA with
//! up to 32 interfaces per node, Blackwell Ultra, and the cluster presets; numbers checked
//! against the published measurements in validation/collectives-amd-efa.csv.

use serde_json::Value;

mod common;
use common::{fails, json, run, stdout_ok};

fn f(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or_else(|| panic!("{k} missing in {v}"))
}

#[test]
fn mi300x_node_busbw_is_the_measured_plateau_within_its_band() {
    // AMD ROCm docs rccl-tests, 8x MI300X all_reduce at 8 GiB: 317.29 GB/s busbw (one process
    // per GPU), 316.58 (one process, -g 8).
    let v = json(&["collective", "--gpu", "mi300x", "--nodes", "1", "--op", "all_reduce", "--bytes", "8G", "--json"]);
    let band = f(&v, "error_band_pct").max(1.0) / 100.0;
    assert!((f(&v, "busbw_GBps") / 317.29 - 1.0).abs() <= band, "{v}");
    assert_eq!(v["trust_class"], "single node, xGMI / ring / >= 64 MiB");
    assert_eq!((v["algorithm"].as_str(), v["protocol"].as_str()), (Some("Ring"), Some("Simple")));
    let g8 = json(&["collective", "--gpu", "mi300x", "--nodes", "1", "--op", "all_reduce", "--bytes", "8G", "--gpus-per-process", "8", "--json"]);
    assert!((f(&g8, "busbw_GBps") / 316.58 - 1.0).abs() <= band, "{g8}");
    // The human output names RCCL, not NCCL.
    let text = stdout_ok(&["collective", "--gpu", "mi300x", "--nodes", "1", "--op", "all_reduce", "--bytes", "8G"]);
    assert!(text.contains("RCCL tuning model 5 (gfx942)") && text.contains("RCCL's own estimate"), "{text}");
}

#[test]
fn nvls_is_never_chosen_on_amd_instinct() {
    for gpu in ["mi300x", "mi325x", "mi355x"] {
        for nodes in ["1", "2"] {
            for op in ["all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce"] {
                let v = json(&["sweep", "--gpu", gpu, "--nodes", nodes, "--nic", "roce-400", "--op", op, "--json"]);
                let rows = v.as_array().expect("an array");
                assert!(rows.len() >= 30);
                for r in rows {
                    let a = r["algorithm"].as_str().unwrap_or_default();
                    assert!(a == "Ring" || a == "Tree", "{gpu} {nodes} {op}: {r}");
                }
            }
        }
        // Forcing it is an error naming the flag and saying why.
        let (code, _, err) = run(&["collective", "--gpu", gpu, "--nodes", "1", "--op", "all_reduce", "--bytes", "1G", "--algo", "nvls"]);
        assert_eq!(code, Some(2));
        assert!(err.contains("--algo") && err.contains("RCCL has no NVLS"), "{err}");
    }
}

#[test]
fn efa_with_32_interfaces_is_accepted_and_near_the_p5_measurements() {
    // p5.48xlarge, 32x 100G EFA: all_gather at 2 GiB on 4 nodes, 330.92 GB/s busbw
    // (crazyguitar/aws-gpu-communication-benchmark); the class band is the EFA ring band.
    let v = json(&["collective", "--nic", "efa-100", "--nics-per-node", "32", "--nodes", "4", "--op", "all_gather", "--bytes", "2G", "--json"]);
    assert_eq!(v["trust_class"], "multi-node, EFA / ring / >= 64 MiB");
    let band = f(&v, "error_band_pct") / 100.0;
    assert!(band > 0.0 && (f(&v, "busbw_GBps") / 330.92 - 1.0).abs() <= band.max(0.05), "{v}");
    let tiers = stdout_ok(&["tiers", "--nic", "efa-100", "--nics-per-node", "32"]);
    assert!(tiers.contains("AWS EFA 100G (SRD) x32"), "{tiers}");
    for nic in ["efa-200", "efa-400"] {
        stdout_ok(&["collective", "--nic", nic, "--nics-per-node", "16", "--op", "all_reduce", "--bytes", "1G"]);
    }
    // Above 32 interfaces is refused, naming the flag.
    let (code, _, err) = run(&["tiers", "--nic", "efa-100", "--nics-per-node", "33"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--nics-per-node"), "{err}");
}

#[test]
fn every_preset_runs_and_flags_override_it() {
    let ids: Vec<String> = {
        let (_, _, err) = run(&["tiers", "--preset", "no-such-preset"]);
        assert!(err.contains("--preset") && err.contains("unknown preset"), "{err}");
        let list = err.split("allowed: ").nth(1).expect("the allowed ids").trim().to_string();
        list.split(", ").map(str::to_string).collect()
    };
    for id in ["aws-p4d", "aws-p5", "aws-p5en", "aws-p6-b200", "gcp-a3-mega", "azure-nd-h100-v5", "mi300x-roce", "mi355x-pollara", "gb300-nvl72", "b300-hgx", "gcp-a3-ultra", "gcp-a4", "azure-nd-gb200-v6", "oci-gb200", "oci-gb300", "oci-mi355x"] {
        assert!(ids.iter().any(|i| i == id), "{id} not in {ids:?}");
    }
    for id in &ids {
        stdout_ok(&["tiers", "--preset", id]);
        stdout_ok(&["collective", "--preset", id, "--op", "all_reduce", "--bytes", "1G"]);
    }
    // A flag given overrides the preset; the rest stays the preset's.
    let t = stdout_ok(&["tiers", "--preset", "aws-p5", "--nodes", "2"]);
    assert!(t.contains("16 GPUs = 2 nodes x 8 H100") && t.contains("32x AWS EFA 100G (SRD)"), "{t}");
    let t = stdout_ok(&["tiers", "--preset", "mi300x-roce"]);
    assert!(t.contains("Infinity Fabric xGMI mesh") && t.contains("8x RoCEv2 400GbE") && t.contains("RCCL"), "{t}");
    // The preset says what it is and where it comes from.
    assert!(t.contains("preset mi300x-roce: approximation:") && t.contains("Source: AMD ROCm docs"), "{t}");
    let t = stdout_ok(&["tiers", "--preset", "aws-p5"]);
    assert!(t.contains("preset aws-p5: approximation:") && t.contains("Source: AWS EC2 User Guide"), "{t}");
    let t = stdout_ok(&["tiers", "--preset", "dgx-h100-superpod"]);
    assert!(t.contains("preset dgx-h100-superpod: reference design:"), "{t}");
    let t = stdout_ok(&["tiers", "--preset", "gb300-nvl72"]);
    assert!(t.contains("72 GPUs") && t.contains("GB300"), "{t}");
}

#[test]
fn amd_and_blackwell_ultra_fabric_rules_name_the_flag() {
    let (code, _, err) = run(&["tiers", "--gpu", "mi300x", "--scale-up", "nvlink4"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("scale") && err.contains("xgmi"), "{err}");
    let (code, _, err) = run(&["tiers", "--gpu", "h100", "--scale-up", "xgmi"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("scale"), "{err}");
    let (code, _, err) = run(&["tiers", "--gpu", "gb300", "--scale-up", "nvlink5"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("nvl72"), "{err}");
    // B300 defaults to its NVLink5 baseboard, GB300 to NVL72 trays of 4.
    assert!(stdout_ok(&["tiers", "--gpu", "b300", "--nodes", "1"]).contains("NVLink5 + NVSwitch"));
    assert!(stdout_ok(&["tiers", "--gpu", "gb300", "--nodes", "18"]).contains("72 GPUs = 18 trays x 4"));
}

#[test]
fn the_bill_of_materials_names_parts_without_figures() {
    // EFA interfaces are part of a rented AWS instance: counted only, no power or price
    // invented for them, and they leave no hole in the totals.
    let out = stdout_ok(&["bom", "--preset", "aws-p5"]);
    assert!(out.contains("nic (count only):") && out.contains("512 x AWS EFA 100G interface"), "{out}");
    let power = out.lines().find(|l| l.starts_with("power:")).unwrap_or_default();
    assert!(power.starts_with("power:") && !power.contains("aws-efa-100"), "{power}");
    let cost = out.lines().find(|l| l.starts_with("cost:")).unwrap_or_default();
    assert!(!cost.contains("aws-efa-100"), "{cost}");
    // DGX B300 at its user guide's 14.5 kW; an MI300X server's host unpowered, its GPUs at 750 W.
    let out = stdout_ok(&["bom", "--preset", "b300-hgx"]);
    assert!(out.contains("32 x DGX B300-class system") && out.contains("14500 W"), "{out}");
    let out = stdout_ok(&["bom", "--preset", "mi300x-roce"]);
    assert!(out.contains("AMD Instinct 8-GPU server") && out.contains("750 W"), "{out}");
    let power = out.lines().find(|l| l.starts_with("power:")).unwrap_or_default();
    assert!(power.contains("instinct-8gpu-server"), "{power}");
}

#[test]
fn h20_keeps_hopper_nvlink_and_its_own_compute() {
    // H20: full NVLink4 (900 GB/s bidirectional), 96 GB HBM3 at 4.0 TB/s (validation/hardware-specs.csv).
    let t = stdout_ok(&["tiers", "--gpu", "h20", "--nodes", "1"]);
    assert!(t.contains("H20 96GB") && t.contains("HBM (96 GB)") && t.contains("4000 GB/s"), "{t}");
    assert!(t.contains("450 GB/s per direction  900 GB/s bidirectional"), "{t}");
    // Collectives inside the node see the same NVLink4 + NVSwitch as H100: the same busbw.
    let h20 = json(&["collective", "--gpu", "h20", "--nodes", "1", "--op", "all_reduce", "--bytes", "1G", "--json"]);
    let h100 = json(&["collective", "--gpu", "h100", "--nodes", "1", "--op", "all_reduce", "--bytes", "1G", "--json"]);
    assert_eq!(f(&h20, "busbw_GBps"), f(&h100, "busbw_GBps"));
}

#[test]
fn roce_100_and_200_scale_with_their_line_rate() {
    // The same ring over the network at half the line rate: half the busbw, within rounding.
    let bw = |nic: &str| f(&json(&["collective", "--nic", nic, "--nodes", "2", "--op", "all_gather", "--bytes", "4G", "--json"]), "busbw_GBps");
    let (r100, r200, r400) = (bw("roce-100"), bw("roce-200"), bw("roce-400"));
    assert!((r200 / r100 - 2.0).abs() < 0.05 && r400 > r200 * 1.5, "{r100} {r200} {r400}");
    // 8x 100 Gb/s is 100 GB/s per node: the busbw never exceeds the line rate per GPU's share.
    assert!(r100 < 100.0, "{r100}");
    let t = stdout_ok(&["tiers", "--nic", "roce-200"]);
    assert!(t.contains("RoCEv2 200GbE x8") && t.contains("25 GB/s per direction"), "{t}");
}

#[test]
fn cloud_shape_presets_say_what_they_are() {
    let t = stdout_ok(&["tiers", "--preset", "gcp-a3-ultra"]);
    assert!(t.contains("8 H200") && t.contains("8x RoCEv2 400GbE") && t.contains("Source: Google Cloud"), "{t}");
    let t = stdout_ok(&["tiers", "--preset", "gcp-a4"]);
    assert!(t.contains("B200") && t.contains("8x RoCEv2 400GbE"), "{t}");
    let t = stdout_ok(&["tiers", "--preset", "azure-nd-gb200-v6"]);
    assert!(t.contains("144 GPUs = 36 trays x 4 GB200") && t.contains("4x InfiniBand NDR 400G") && t.contains("Microsoft Learn"), "{t}");
    let t = stdout_ok(&["tiers", "--preset", "oci-gb300"]);
    assert!(t.contains("GB300") && t.contains("8x RoCEv2 400GbE") && t.contains("approximation:"), "{t}");
    let t = stdout_ok(&["tiers", "--preset", "oci-mi355x"]);
    assert!(t.contains("1024 GPUs") && t.contains("MI355X") && t.contains("RCCL"), "{t}");
    let t = stdout_ok(&["tiers", "--preset", "oci-gb200"]);
    assert!(t.contains("GB200") && t.contains("4x RoCEv2 400GbE"), "{t}");
}

/// Issue 37: GB200 sized as the explorer sizes it, in GPUs (`--gpus`), or in trays (`--nodes`);
/// a count that is not whole trays is refused as the page refuses it.
#[test]
fn nvl72_is_sized_in_gpus_as_on_the_page() {
    let t = stdout_ok(&["tiers", "--gpu", "gb200", "--gpus", "72"]);
    assert!(t.contains("72 GPUs = 18 trays x 4 GB200"), "{t}");
    // Its NICs per tray, as the page's 'NICs per tray' control and cluster line say.
    assert!(t.contains("InfiniBand NDR 400G per tray"), "{t}");
    assert_eq!(stdout_ok(&["tiers", "--gpu", "gb200", "--gpus", "144"]), stdout_ok(&["tiers", "--gpu", "gb200", "--nodes", "36"]));
    assert!(stdout_ok(&["tiers", "--gpus", "64"]).contains("64 GPUs = 8 nodes x 8 H100"));
    fails(&["tiers", "--gpu", "gb200", "--gpus", "70"], &["--gpus", "trays of 4", "multiple of 4"]);
    fails(&["tiers", "--gpu", "gb200", "--gpus", "72", "--nodes", "18"], &["--gpus", "--nodes"]);
}
