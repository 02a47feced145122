package knowledge

// term is a glossary entry: the spelling product titles use, what it
// stands for, a definition for its page, and questions that describe it
// without naming it. They are common technical facts, stated as the
// standards and vendors define them.
type term struct {
	name       string
	expansion  string
	definition string
	questions  []string
}

// glossary is a function so no caller can change the table.
func glossary() []term {
	return []term{
		{"TWS", "true wireless stereo",
			"TWS (true wireless stereo) earbuds have no cable between the left and right bud; each bud receives audio over Bluetooth.",
			[]string{
				"What abbreviation do earbud listings use for true wireless stereo, earbuds with no wire between the left and right buds?",
				"Earbuds without any cable between the two buds are sold as true wireless stereo. What is the three-letter abbreviation?",
			}},
		{"NFC", "near-field communication",
			"NFC (near-field communication) is a short-range wireless technology, working over a few centimetres, that phones use for contactless tap-to-pay.",
			[]string{
				"What is the abbreviation of near-field communication, the short-range technology phones use for tap-to-pay?",
				"Which three-letter wireless technology lets a phone pay by tapping a card reader from a few centimetres away?",
			}},
		{"HEPA", "high-efficiency particulate air",
			"A HEPA (high-efficiency particulate air) filter removes at least 99.97% of airborne particles of 0.3 micrometres, under the US Department of Energy standard.",
			[]string{
				"Which filter standard, short for high-efficiency particulate air, captures at least 99.97% of 0.3-micrometre particles?",
				"What is the four-letter name of the air filter grade that traps 99.97% of particles of 0.3 micrometres?",
			}},
		{"AMOLED", "active-matrix organic light-emitting diode",
			"AMOLED (active-matrix organic light-emitting diode) screens light each pixel on its own, so blacks are truly black and no backlight is needed.",
			[]string{
				"What display technology is abbreviated from active-matrix organic light-emitting diode?",
				"Which phone screen type lights every pixel by itself through an active matrix of organic diodes, with no backlight?",
			}},
		{"TKL", "tenkeyless",
			"A TKL (tenkeyless) keyboard is a full keyboard without the numeric keypad on the right, which leaves more room for the mouse.",
			[]string{
				"What abbreviation do keyboard sellers use for a tenkeyless layout, a keyboard without the number pad?",
				"A keyboard that drops the numeric keypad is called tenkeyless. How is that written in short in listings?",
			}},
		{"GaN", "gallium nitride",
			"GaN (gallium nitride) is a semiconductor that switches power more efficiently than silicon, so GaN chargers are smaller and run cooler.",
			[]string{
				"Which semiconductor, gallium nitride, makes phone chargers smaller and cooler? Give its chemical short name.",
				"Chargers built with gallium nitride instead of silicon are labelled with what three-letter short name?",
			}},
		{"BPA", "bisphenol A",
			"BPA (bisphenol A) is an industrial chemical used in some plastics; bottles and food containers labelled BPA free are made without it.",
			[]string{
				"Which chemical, bisphenol A, do the free labels on baby bottles and food containers refer to by its abbreviation?",
				"What is the three-letter abbreviation of bisphenol A, the chemical some plastic bottles are made without?",
			}},
		{"UV400", "ultraviolet protection up to 400 nanometres",
			"UV400 sunglasses block ultraviolet rays with wavelengths up to 400 nanometres, which covers all UVA and UVB light.",
			[]string{
				"What rating on sunglasses means they block ultraviolet rays with wavelengths up to 400 nanometres?",
				"Which sunglasses label promises protection from all UVA and UVB light up to 400 nanometres?",
			}},
		{"IPX7", "ingress protection against immersion",
			"Under IEC 60529, an IPX7 device survives immersion in water up to 1 metre deep for 30 minutes; dust protection is not rated.",
			[]string{
				"Which water-resistance rating under IEC 60529 means a device survives immersion in 1 metre of water for 30 minutes?",
				"What ingress protection code do gadgets carry when they can be submerged 1 metre deep for half an hour?",
			}},
		{"HDMI", "High-Definition Multimedia Interface",
			"HDMI (High-Definition Multimedia Interface) carries digital video and audio over one cable between players, consoles, TVs and monitors.",
			[]string{
				"What is the abbreviation of High-Definition Multimedia Interface, the cable standard for TVs and monitors?",
				"Which four-letter digital interface carries both video and audio from a console to a TV over one cable?",
			}},
		{"SPF", "sun protection factor",
			"SPF (sun protection factor) measures how well a sunscreen protects skin from UVB rays; SPF 50 lets through about 2% of UVB.",
			[]string{
				"What do sunscreen labels abbreviate sun protection factor as?",
				"Which three-letter number on a sunscreen tells how well it blocks UVB rays?",
			}},
		{"MagSafe", "Apple's magnetic charging system",
			"MagSafe is Apple's magnetic system, introduced with the iPhone 12 in 2020, that aligns chargers, cases and wallets on the back of the phone.",
			[]string{
				"What is the name of Apple's magnetic charging and accessory system introduced with the iPhone 12?",
				"Which magnetic attachment system did Apple launch in 2020 so chargers and wallets snap onto the back of an iPhone?",
			}},
		{"DPI", "dots per inch",
			"DPI (dots per inch) measures mouse sensitivity: at a higher DPI the pointer moves farther for the same hand movement.",
			[]string{
				"Mouse sensitivity is measured in dots per inch. What is the abbreviation?",
				"Which three-letter unit tells how far a mouse pointer moves for each inch the mouse travels?",
			}},
		{"NVMe", "Non-Volatile Memory Express",
			"NVMe (Non-Volatile Memory Express) is the protocol fast solid-state drives use to talk to a computer over PCI Express lanes.",
			[]string{
				"What is the short name of Non-Volatile Memory Express, the protocol fast PCIe solid-state drives use?",
				"Which four-letter storage protocol lets solid-state drives talk to a computer directly over PCI Express?",
			}},
		{"GPS", "Global Positioning System",
			"GPS (Global Positioning System) is the satellite navigation system run by the United States that gives receivers their position and time.",
			[]string{
				"What is the abbreviation of the Global Positioning System used for satellite navigation?",
				"Which satellite navigation system run by the United States do smartwatches and trackers use to find their position?",
			}},
		{"SSD", "solid-state drive",
			"An SSD (solid-state drive) stores data on flash memory with no moving parts, so it is faster and tougher than a hard disk.",
			[]string{
				"What abbreviation is used for a solid-state drive, storage on flash memory with no moving parts?",
				"Which three-letter kind of storage drive keeps data on flash chips instead of spinning disks?",
			}},
	}
}

// places are the cities invented brand histories are set in.
func places() [][2]string {
	return [][2]string{
		{"Bergen", "Norway"}, {"Oslo", "Norway"}, {"Malmo", "Sweden"}, {"Gothenburg", "Sweden"}, {"Aarhus", "Denmark"},
		{"Tampere", "Finland"}, {"Utrecht", "the Netherlands"}, {"Ghent", "Belgium"}, {"Lyon", "France"}, {"Nantes", "France"},
		{"Porto", "Portugal"}, {"Valencia", "Spain"}, {"Bilbao", "Spain"}, {"Turin", "Italy"}, {"Bologna", "Italy"},
		{"Graz", "Austria"}, {"Basel", "Switzerland"}, {"Leipzig", "Germany"}, {"Stuttgart", "Germany"}, {"Krakow", "Poland"},
		{"Brno", "Czechia"}, {"Cork", "Ireland"}, {"Leeds", "the United Kingdom"}, {"Glasgow", "the United Kingdom"},
		{"Osaka", "Japan"}, {"Nagoya", "Japan"}, {"Sapporo", "Japan"}, {"Busan", "South Korea"}, {"Daegu", "South Korea"},
		{"Taichung", "Taiwan"}, {"Shenzhen", "China"}, {"Hangzhou", "China"}, {"Xiamen", "China"}, {"Penang", "Malaysia"},
		{"Chiang Mai", "Thailand"}, {"Da Nang", "Vietnam"}, {"Cebu", "the Philippines"}, {"Davao", "the Philippines"},
		{"Surabaya", "Indonesia"}, {"Pune", "India"}, {"Auckland", "New Zealand"}, {"Perth", "Australia"},
		{"Adelaide", "Australia"}, {"Vancouver", "Canada"}, {"Montreal", "Canada"}, {"Portland", "the United States"},
		{"Austin", "the United States"}, {"Denver", "the United States"}, {"Monterrey", "Mexico"}, {"Curitiba", "Brazil"},
		{"Cordoba", "Argentina"}, {"Valparaiso", "Chile"}, {"Cape Town", "South Africa"}, {"Nairobi", "Kenya"},
		{"Izmir", "Turkey"}, {"Haifa", "Israel"}, {"Tallinn", "Estonia"}, {"Riga", "Latvia"}, {"Ljubljana", "Slovenia"},
		{"Reykjavik", "Iceland"},
	}
}

func firstNames() []string {
	return []string{"Ana", "Bruno", "Chiara", "Dmitri", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kaito", "Lena",
		"Marco", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Sven", "Tomas", "Ulla", "Viktor", "Wen", "Ximena", "Yusuf",
		"Zofia", "Amaya", "Bastian", "Carmen", "Dario", "Emil", "Freya", "Goran", "Hana", "Ivo", "Jana", "Kenji", "Liam",
		"Mira", "Niko"}
}

func lastNames() []string {
	return []string{"Lind", "Moreau", "Rossi", "Ivanova", "Haddad", "Berg", "Tanaka", "Costa", "Novak", "Sato", "Weber",
		"Duarte", "Kowalski", "Okafor", "Petrov", "Quispe", "Reyes", "Silva", "Tran", "Urban", "Vargas", "Wagner",
		"Xu", "Yilmaz", "Zeller", "Aalto", "Brandt", "Castillo", "Dahl", "Engel", "Fischer", "Garcia", "Holm",
		"Ikeda", "Jensen", "Kim", "Larsen", "Mendes", "Nyberg", "Ortiz"}
}
