//! Serial ports on this machine, with USB ids where the system tells them.

use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct PortInfo {
    pub path: String,
    /// `usb`, `pci`, `bluetooth` or `unknown`.
    pub kind: &'static str,
    pub vendor_id: Option<String>,
    pub product_id: Option<String>,
    pub serial_number: Option<String>,
    pub manufacturer: Option<String>,
    pub product: Option<String>,
}

/// Every serial port the system lists (without libudev some details may be missing).
pub fn list() -> Result<Vec<PortInfo>, serialport::Error> {
    let ports = serialport::available_ports()?;
    Ok(ports
        .into_iter()
        .map(|p| {
            let mut info = PortInfo {
                path: p.port_name,
                kind: "unknown",
                vendor_id: None,
                product_id: None,
                serial_number: None,
                manufacturer: None,
                product: None,
            };
            match p.port_type {
                serialport::SerialPortType::UsbPort(u) => {
                    info.kind = "usb";
                    info.vendor_id = Some(format!("{:04x}", u.vid));
                    info.product_id = Some(format!("{:04x}", u.pid));
                    info.serial_number = u.serial_number;
                    info.manufacturer = u.manufacturer;
                    info.product = u.product;
                }
                serialport::SerialPortType::PciPort => info.kind = "pci",
                serialport::SerialPortType::BluetoothPort => info.kind = "bluetooth",
                serialport::SerialPortType::Unknown => {}
            }
            info
        })
        .collect())
}
