package gen

// taxonomySource is the marketplace vocabulary, in a small line format that
// parseTaxonomy reads:
//
//	top <name> | <weight> | <brands>     a top-level category: relative share
//	                                      of products, number of brands
//	attr <key>: v1, v2, ...               an attribute of the current top
//	                                      category, or of the current leaf when
//	                                      it follows a leaf line
//	sku <key>: v1, v2, ...                a SKU option dimension, same scoping
//	leaf <sub> > <leaf> | <median price> | <types> | <features>
//	                                      a leaf category: product type nouns
//	                                      and title feature phrases
//
// Prices are Philippine pesos, as in ShoppingBench's Lazada data. It is a
// constant so the vocabulary cannot be changed at run time.
const taxonomySource = `
top Mobiles & Tablets | 6 | 40
attr warranty_type: no warranty, local supplier warranty, local manufacturer warranty, international manufacturer warranty
attr compatible_model: iphone 15, iphone 14, iphone 13, samsung galaxy s24, samsung galaxy a55, redmi note 13, oppo a78, vivo y36, realme c55, infinix hot 40
attr material: silicone, tpu, leather, tempered glass, aluminum, plastic, metal
sku color_family: black, white, blue, red, pink, green, purple, gold, silver, transparent
leaf Mobile Accessories > Phone Cases | 180 | phone case, phone cover, back case, flip case | shockproof, transparent, magnetic, liquid silicone, anti fall, slim fit, matte finish, card holder, camera protection, glitter, ring holder, wallet
sku compatible_model: iphone 15, iphone 15 pro, iphone 14, samsung s24, redmi note 13, oppo a78, vivo y36
leaf Mobile Accessories > Screen Protectors | 120 | screen protector, tempered glass, privacy film, hydrogel film | 9h hardness, full coverage, anti spy, anti blue light, bubble free, edge to edge, matte, easy install kit
leaf Mobile Accessories > Chargers | 350 | fast charger, wall charger, charger adapter, car charger | 20w, 33w, 65w, pd, usb c, dual port, gan, quick charge, travel, foldable plug
attr output_power: 18w, 20w, 33w, 45w, 65w, 100w
leaf Mobile Accessories > Cables | 150 | charging cable, data cable, usb c cable, lightning cable | braided, fast charging, 1m, 2m, 3 in 1, magnetic, 6a, right angle, nylon, durable
attr cable_length: 0.5m, 1m, 1.5m, 2m, 3m
leaf Mobile Accessories > Power Banks | 900 | power bank, portable charger, powerbank | 10000mah, 20000mah, 30000mah, pd fast charge, slim, magsafe, digital display, built in cable, mini
attr battery_capacity: 5000mah, 10000mah, 20000mah, 30000mah
leaf Mobile Accessories > Phone Holders | 250 | phone holder, phone stand, car mount, selfie stick | adjustable, 360 rotation, foldable, desk, bike, magnetic, tripod, bluetooth remote, gooseneck
leaf Tablets > Tablet Cases | 450 | tablet case, ipad cover, keyboard case | smart cover, pencil holder, trifold, shockproof, rotating, leather, for ipad 10th gen, for galaxy tab
leaf Mobiles > Smartphones | 9000 | smartphone, mobile phone, android phone | 8gb ram, 256gb, 5g, 120hz display, 50mp camera, 5000mah, dual sim, nfc, amoled
attr storage_capacity: 64gb, 128gb, 256gb, 512gb
attr ram_memory: 4gb, 6gb, 8gb, 12gb
sku storage_capacity: 128gb, 256gb, 512gb

top Computers & Laptops | 4 | 35
attr warranty_type: no warranty, local supplier warranty, local manufacturer warranty
attr connectivity: wired, wireless, bluetooth, usb, 2.4g
attr compatible_os: windows, macos, linux, android, chrome os
sku color_family: black, white, grey, pink, blue
leaf Computer Accessories > Mice | 350 | mouse, gaming mouse, wireless mouse, vertical mouse | silent click, rechargeable, rgb, ergonomic, 2.4ghz, bluetooth, 6 buttons, adjustable dpi, lightweight
attr dpi: 1200 dpi, 1600 dpi, 3200 dpi, 7200 dpi, 16000 dpi
leaf Computer Accessories > Keyboards | 900 | keyboard, mechanical keyboard, gaming keyboard, keyboard and mouse combo | rgb backlit, hot swappable, blue switch, red switch, 60 percent, tkl, wireless, waterproof, compact, silent
attr switch_type: blue switch, red switch, brown switch, membrane
leaf Computer Accessories > Laptop Stands | 500 | laptop stand, laptop riser, cooling pad, laptop table | aluminum, adjustable height, foldable, portable, ventilated, ergonomic, with fan, 17 inch
leaf Storage > Flash Drives | 300 | flash drive, usb flash drive, otg flash drive, thumb drive | 32gb, 64gb, 128gb, 256gb, usb 3.0, metal, waterproof, dual drive, high speed
attr storage_capacity: 32gb, 64gb, 128gb, 256gb, 512gb
sku storage_capacity: 32gb, 64gb, 128gb, 256gb
leaf Storage > External Drives | 2500 | external hard drive, portable ssd, hdd enclosure, ssd | 1tb, 2tb, 500gb, usb c, shockproof, nvme, sata, type c
attr storage_capacity: 250gb, 500gb, 1tb, 2tb, 4tb
leaf Network Components > Routers | 1600 | wifi router, mesh router, pocket wifi, range extender | dual band, wifi 6, 4g lte, 5g, 300mbps, 1200mbps, gigabit, long range, sim card slot
leaf Computer Components > Monitors | 7000 | monitor, gaming monitor, ips monitor, portable monitor | 24 inch, 27 inch, 144hz, 165hz, full hd, 2k, 4k, curved, frameless, hdmi
attr screen_size: 22 inch, 24 inch, 27 inch, 32 inch
leaf Computer Components > Webcams | 900 | webcam, web camera, conference camera | 1080p, 2k, built in microphone, auto focus, privacy cover, usb plug and play, wide angle
leaf Laptops > Laptops | 32000 | laptop, notebook, gaming laptop, ultrabook | core i5, core i7, ryzen 5, ryzen 7, 16gb ram, 512gb ssd, 15.6 inch, 14 inch, rtx 4050, fhd ips
attr ram_memory: 8gb, 16gb, 32gb
attr storage_capacity: 256gb, 512gb, 1tb

top Audio | 5 | 40
attr connectivity: wired, wireless, bluetooth, 3.5mm jack, usb c
attr warranty_type: no warranty, local supplier warranty, local manufacturer warranty
attr water_resistance: none, ipx4, ipx5, ipx7
sku color_family: black, white, blue, pink, green, beige, grey
leaf Headphones & Headsets > Earbuds | 650 | earbuds, tws earbuds, wireless earphones, in ear earphones | noise cancelling, bluetooth 5.3, touch control, low latency, bass boost, long battery, waterproof, enc mic, gaming mode, semi in ear
leaf Headphones & Headsets > Over Ear Headphones | 1500 | headphones, over ear headphones, headset, gaming headset | active noise cancelling, foldable, hi res, with mic, rgb, 7.1 surround, memory foam, wireless, wired
leaf Headphones & Headsets > Wired Earphones | 150 | earphones, in ear earphones, type c earphones | with mic, hifi, super bass, 3.5mm, tangle free, in line control, metal
leaf Speakers > Bluetooth Speakers | 1200 | bluetooth speaker, portable speaker, party speaker, mini speaker | waterproof, 360 sound, rgb lights, tws pairing, super bass, outdoor, karaoke, fm radio, long battery
attr output_power: 5w, 10w, 20w, 40w, 100w
leaf Speakers > Soundbars | 4500 | soundbar, home theater speaker, tv speaker | 2.1 channel, subwoofer, dolby, bluetooth, hdmi arc, optical input, wall mountable
leaf Live Sound > Microphones | 800 | microphone, lavalier microphone, condenser microphone, karaoke microphone | wireless, usb, noise reduction, plug and play, for live streaming, cardioid, rechargeable
leaf Live Sound > Amplifiers | 3500 | amplifier, power amplifier, mixer, audio interface | bluetooth, 2 channel, karaoke, 4 channel, class d, usb recording, phantom power

top Cameras & Drones | 2 | 25
attr warranty_type: no warranty, local supplier warranty, local manufacturer warranty
attr video_resolution: 720p, 1080p, 2k, 4k
attr connectivity: wifi, bluetooth, usb, hdmi
sku color_family: black, white, grey
leaf Security Cameras > IP Cameras | 1100 | cctv camera, ip camera, security camera, baby monitor camera | wifi, 360 degree, night vision, two way audio, motion detection, outdoor, waterproof, solar powered, dual lens
leaf Action Cameras > Action Cameras | 3500 | action camera, sports camera, dash cam | 4k, waterproof, wide angle, image stabilization, touch screen, helmet mount, loop recording
leaf Camera Accessories > Tripods | 450 | tripod, phone tripod, gimbal stabilizer, ring light | extendable, aluminum, bluetooth remote, 3 axis, led, dimmable, 10 inch, 18 inch, selfie
leaf Camera Accessories > Memory Cards | 400 | memory card, micro sd card, sd card | 64gb, 128gb, 256gb, class 10, u3, v30, a2, high speed
attr storage_capacity: 32gb, 64gb, 128gb, 256gb
sku storage_capacity: 32gb, 64gb, 128gb, 256gb
leaf Drones > Drones | 6000 | drone, mini drone, fpv drone, quadcopter | 4k camera, gps, foldable, obstacle avoidance, brushless, long flight time, follow me, for beginners
leaf Instant Cameras > Instant Cameras | 4200 | instant camera, film camera, digital camera | instant print, retro, compact, vlog, 48mp, with flash, kids

top TV & Home Appliances | 6 | 45
attr warranty_type: no warranty, local supplier warranty, local manufacturer warranty
attr power_source: electric, rechargeable, battery, usb powered, solar
attr voltage: 110v, 220v, 12v, 5v
sku color_family: white, black, grey, blue, pink, green
leaf Cooling & Air Treatment > Electric Fans | 1200 | electric fan, stand fan, desk fan, ceiling fan, mini fan | 16 inch, remote control, timer, oscillating, silent, rechargeable, usb, bladeless, energy saving
leaf Cooling & Air Treatment > Air Purifiers | 3500 | air purifier, humidifier, dehumidifier, air cooler | hepa filter, ultrasonic, aroma diffuser, quiet, large room, uv light, ionizer, 3l tank
leaf Vacuums & Floor Care > Vacuum Cleaners | 2800 | vacuum cleaner, robot vacuum, cordless vacuum, handheld vacuum | cyclone, wet and dry, high suction, bagless, mop function, lightweight, car use, 2 in 1
leaf Kitchen Appliances > Air Fryers | 2600 | air fryer, oven air fryer, digital air fryer | 4.5l, 6l, 12l, oil free, digital touch, non stick, timer, dual basket, rotisserie
attr capacity: 3l, 4.5l, 6l, 8l, 12l
leaf Kitchen Appliances > Rice Cookers | 1400 | rice cooker, multi cooker, slow cooker | 1l, 1.8l, non stick, keep warm, digital, steamer basket, low sugar, 3 cups
attr capacity: 0.6l, 1l, 1.5l, 1.8l, 2.8l
leaf Kitchen Appliances > Blenders | 1300 | blender, juicer, food processor, portable blender | heavy duty, 2l jar, stainless steel blades, ice crushing, rechargeable, usb, glass jar, 1000w
leaf Kitchen Appliances > Electric Kettles | 650 | electric kettle, kettle, water boiler | 1.8l, stainless steel, auto shut off, cordless, glass, temperature control, fast boil
leaf Televisions > Smart TVs | 14000 | smart tv, led tv, android tv, google tv | 32 inch, 43 inch, 50 inch, 55 inch, 4k uhd, frameless, hdr, netflix, youtube, voice remote
attr screen_size: 32 inch, 43 inch, 50 inch, 55 inch, 65 inch
leaf Laundry > Washing Machines | 9000 | washing machine, twin tub washer, dryer | 7kg, 8kg, 10kg, front load, top load, inverter, fully automatic, spin dryer
leaf Irons & Garment Care > Irons | 700 | steam iron, flat iron, garment steamer | handheld, foldable, ceramic soleplate, dry and steam, vertical, fast heat up

top Kitchen & Dining | 5 | 40
attr material: stainless steel, ceramic, glass, plastic, bamboo, cast iron, aluminum, silicone
attr dishwasher_safe: yes, no
sku color_family: black, white, grey, green, blue, pink, beige, red
sku set_size: 1 pc, 2 pcs, 3 pcs, 4 pcs, 6 pcs, 12 pcs
leaf Cookware > Frying Pans | 650 | frying pan, non stick pan, wok, grill pan | granite coating, induction compatible, 24cm, 28cm, deep, with lid, heat resistant handle
leaf Cookware > Cookware Sets | 2200 | cookware set, pot set, casserole, stock pot | non stick, 5 piece, 10 piece, induction, with glass lid, marble coating
leaf Drinkware > Tumblers | 350 | tumbler, water bottle, vacuum flask, coffee mug | insulated, 40oz, 1l, leak proof, with straw, with handle, motivational, bpa free, double wall
attr capacity: 350ml, 500ml, 750ml, 1l, 1.2l, 2l
leaf Kitchen Storage > Food Containers | 300 | food container, lunch box, bento box, storage jar | airtight, microwave safe, glass, stackable, leak proof, set, compartments, freezer safe
leaf Kitchen Tools > Knives | 450 | kitchen knife, knife set, chef knife, cleaver | german steel, ultra sharp, with block, damascus pattern, ergonomic handle, rust proof
leaf Kitchen Tools > Utensils | 220 | spatula set, cooking utensils, ladle, tongs | silicone, heat resistant, wooden handle, non scratch, 12 piece, with holder
leaf Tableware > Dinnerware | 600 | dinner plate, bowl set, dinnerware set, cutlery set | ceramic, nordic, microwave safe, gold rim, 16 piece, stainless steel, matte glaze
leaf Coffee & Tea > Coffee Makers | 1800 | coffee maker, french press, moka pot, coffee grinder | espresso, drip, manual, electric, 600ml, burr, portable, stainless

top Home & Living | 7 | 50
attr material: cotton, polyester, microfiber, linen, bamboo, wood, plastic, metal, velvet
attr pattern: plain, floral, striped, geometric, cartoon, checkered, solid color
sku color_family: white, grey, beige, blue, pink, green, black, brown, navy
sku size: single, double, queen, king, 50x70cm, 150x200cm
leaf Bedding > Bed Sheets | 550 | bed sheet set, fitted sheet, pillow case, duvet cover | 4 in 1, cotton, soft, breathable, cooling, wrinkle free, deep pocket, korean style
leaf Bedding > Pillows | 350 | pillow, memory foam pillow, neck pillow, body pillow | orthopedic, cervical, hotel quality, hypoallergenic, cooling gel, contour, washable cover
leaf Bedding > Blankets | 500 | blanket, comforter, throw blanket, quilt | fleece, weighted, soft, lightweight, all season, double sided, aircon
leaf Home Decor > Curtains | 450 | curtain, blackout curtain, shower curtain, window blinds | thermal insulated, grommet, sheer, waterproof, 2 panels, ring top, roller
sku size: 100x130cm, 140x160cm, 140x210cm, 140x240cm
leaf Home Decor > Wall Decor | 280 | wall sticker, wall clock, wall art, photo frame | 3d, self adhesive, removable, waterproof, silent, nordic, acrylic, canvas
leaf Lighting > LED Lights | 300 | led strip light, led bulb, night light, fairy lights | rgb, app control, remote, motion sensor, warm white, usb, solar, 5m, 10m, dimmable
leaf Storage & Organization > Storage Boxes | 320 | storage box, storage bin, organizer, drawer organizer | foldable, stackable, with lid, clear, large capacity, fabric, under bed, multi compartment
leaf Bathroom > Bath Accessories | 280 | bath mat, shower head, towel rack, soap dispenser | anti slip, absorbent, high pressure, stainless, wall mounted, no drill, automatic
leaf Laundry & Cleaning > Cleaning Supplies | 180 | mop, microfiber cloth, cleaning brush, spin mop | 360 spin, reusable, absorbent, scratch free, telescopic handle, bucket set
top Furniture | 3 | 30
attr material: wood, engineered wood, metal, plastic, rattan, fabric, leather, bamboo
attr assembly_required: yes, no
sku color_family: white, black, brown, oak, walnut, grey, beige
leaf Living Room Furniture > Sofas | 9500 | sofa, sofa bed, couch, sectional sofa | 3 seater, l shape, foldable, fabric, leather, nordic, convertible, with storage
leaf Living Room Furniture > Coffee Tables | 2200 | coffee table, side table, center table, tv rack | round, marble top, with storage, minimalist, glass top, wooden, nordic
leaf Bedroom Furniture > Bed Frames | 6500 | bed frame, bunk bed, folding bed, platform bed | queen size, double deck, metal, wooden, with headboard, with drawers, heavy duty
leaf Bedroom Furniture > Wardrobes | 3500 | wardrobe, cabinet, clothes rack, dresser | portable, with mirror, 3 doors, plastic drawer, steel frame, foldable, large capacity
leaf Office Furniture > Office Chairs | 3200 | office chair, gaming chair, ergonomic chair, mesh chair | adjustable, reclining, lumbar support, with footrest, swivel, high back, armrest
leaf Office Furniture > Desks | 2800 | computer desk, study table, standing desk, folding table | with drawer, l shaped, height adjustable, space saving, wooden, steel legs
leaf Storage Furniture > Shelves | 1200 | shelf, bookshelf, shoe rack, storage rack | 5 tier, ladder, wall mounted, metal, bamboo, multi layer, corner, stackable

top Tools & Home Improvement | 4 | 40
attr power_source: corded electric, cordless, battery, manual, pneumatic
attr warranty_type: no warranty, local supplier warranty, local manufacturer warranty
attr material: carbon steel, stainless steel, chrome vanadium, alloy, plastic, rubber
sku color_family: black, yellow, red, blue, green, orange
leaf Power Tools > Drills | 1900 | cordless drill, impact drill, electric screwdriver, rotary hammer | 21v, brushless, 2 batteries, variable speed, keyless chuck, led light, with drill bits
attr voltage: 12v, 18v, 21v, 220v
leaf Power Tools > Grinders | 1500 | angle grinder, polisher, sander | 4 inch, 100mm, variable speed, heavy duty, cordless, with disc set
leaf Hand Tools > Tool Sets | 800 | tool set, socket wrench set, screwdriver set, toolbox | 46 pieces, 108 pieces, ratchet, precision, magnetic, household, heavy duty
leaf Hand Tools > Pliers & Wrenches | 260 | pliers, adjustable wrench, pipe wrench, cutter | crimping, insulated, long nose, locking, multi function, 8 inch, 10 inch
leaf Hardware > Fasteners | 150 | screws, wall plugs, bolts and nuts, hooks | self tapping, stainless, assorted, 100 pcs, drywall, heavy duty, no drill
leaf Hardware > Door Hardware | 550 | door lock, smart lock, door handle, padlock, gate roller | fingerprint, keyless, stainless steel, heavy duty, v type, u type, anti theft
leaf Electrical > Extension Cords | 380 | extension cord, power strip, smart plug, surge protector | universal socket, usb ports, 3m, 5m, wifi, individual switches, heavy duty
leaf Electrical > Lighting Fixtures | 600 | led flood light, solar light, emergency light, work light | 100w, 200w, waterproof, motion sensor, remote, rechargeable, outdoor
leaf Plumbing > Faucets | 700 | faucet, kitchen faucet, shower set, water filter | stainless, pull down, hot and cold, 360 rotation, rain shower, wall mounted
leaf Measuring Tools > Measuring Tools | 350 | measuring tape, laser level, digital caliper, multimeter | 5m, 7.5m, self leveling, green beam, 150mm, auto range, lcd

top Health & Beauty | 8 | 60
attr skin_type: all skin types, oily, dry, combination, sensitive, normal, acne prone
attr country_of_origin: philippines, south korea, japan, china, thailand, usa, france
attr volume: 15ml, 30ml, 50ml, 100ml, 150ml, 200ml, 500ml
sku volume: 30ml, 50ml, 100ml, 200ml
leaf Skin Care > Moisturizers | 420 | moisturizer, face cream, night cream, gel cream, day cream | hydrating, brightening, anti aging, niacinamide, hyaluronic acid, ceramide, oil free, spf 30, whitening, soothing
leaf Skin Care > Serums | 450 | face serum, essence, ampoule, toner | vitamin c, retinol, niacinamide, hyaluronic, snail mucin, centella, salicylic acid, glow, dark spot
leaf Skin Care > Cleansers | 280 | facial wash, cleanser, micellar water, cleansing oil | gentle, foaming, ph balanced, acne, exfoliating, deep cleansing, fragrance free, rice
leaf Skin Care > Sunscreen | 380 | sunscreen, sunblock, sun serum, tinted sunscreen | spf 50, pa++++, lightweight, water resistant, no white cast, matte, for face, uv protection
leaf Makeup > Lip Makeup | 250 | lipstick, lip tint, lip gloss, lip balm | matte, long lasting, waterproof, velvet, moisturizing, non transfer, nude, korean
sku shade: 01 red, 02 nude, 03 pink, 04 coral, 05 berry, 06 brown, 07 rose
leaf Makeup > Face Makeup | 400 | foundation, cushion, concealer, face powder, blush | full coverage, oil control, dewy, matte, spf, natural finish, long wear, poreless
sku shade: ivory, light, natural, beige, sand, tan
leaf Makeup > Eye Makeup | 260 | mascara, eyeliner, eyeshadow palette, eyebrow pencil | waterproof, smudge proof, lengthening, 18 colors, glitter, shimmer, long lasting
leaf Makeup Tools > Brushes & Sponges | 220 | makeup brush set, beauty blender, makeup sponge, eyelash curler | soft, 14 pieces, latex free, with pouch, vegan, professional
leaf Fragrances > Perfumes | 650 | perfume, eau de parfum, body mist, cologne | long lasting, floral, fresh, sweet, woody, inspired, unisex, 50ml, travel size
leaf Medical Supplies > Health Monitors | 1100 | blood pressure monitor, thermometer, pulse oximeter, glucometer | digital, automatic, infrared, non contact, fda, large display, arm type
leaf Supplements > Vitamins | 550 | vitamins, vitamin c, multivitamins, collagen, fish oil | 500mg, 1000mg, 60 capsules, 100 tablets, immune support, sugar free, fda approved
attr pack_type: single, bundle, multi pack
leaf Supplements > Sports Nutrition | 1800 | whey protein, creatine, mass gainer, pre workout | 2lbs, 5lbs, 120 servings, chocolate, vanilla, unflavored, isolate, monohydrate

top Personal Care | 5 | 45
attr hair_type: all hair types, straight, curly, damaged, colored, oily, dry
attr scent: unscented, lavender, citrus, mint, vanilla, coconut, rose, fresh
attr volume: 50ml, 100ml, 200ml, 400ml, 750ml, 1l
sku scent: lavender, citrus, mint, vanilla, coconut, rose
leaf Hair Care > Shampoo | 320 | shampoo, conditioner, hair mask, hair oil | anti dandruff, keratin, argan oil, sulfate free, hair fall, moisturizing, volumizing, biotin
leaf Hair Care > Hair Styling Tools | 850 | hair dryer, hair straightener, curling iron, hair clipper | ionic, ceramic, 2 in 1, cordless, fast drying, adjustable temperature, professional, usb rechargeable
leaf Bath & Body > Body Wash | 250 | body wash, shower gel, bath soap, body scrub | whitening, moisturizing, glutathione, kojic, goat milk, exfoliating, antibacterial
leaf Bath & Body > Lotions | 300 | body lotion, hand cream, body butter, body oil | whitening, spf, shea butter, non greasy, fast absorbing, vitamin e, 400ml
leaf Oral Care > Toothbrushes | 450 | electric toothbrush, toothbrush, water flosser, toothpaste | sonic, rechargeable, soft bristle, whitening, 5 modes, ipx7, replacement heads
leaf Men's Care > Shavers | 900 | electric shaver, trimmer, razor, beard kit | rotary, waterproof, cordless, precision, usb charging, 3 blades, washable
leaf Feminine Care > Feminine Care | 180 | sanitary pads, menstrual cup, feminine wash, panty liners | overnight, ultra thin, cotton, ph balanced, organic, medical grade silicone, with wings

top Mother & Baby | 5 | 40
attr recommended_age: 0 to 6 months, 6 to 12 months, 1 to 3 years, 3 to 6 years, 6 years and above
attr material: cotton, silicone, bpa free plastic, bamboo, polyester, stainless steel
attr baby_safety: bpa free, phthalate free, non toxic, fda approved, hypoallergenic
sku size: newborn, s, m, l, xl, xxl
sku color_family: pink, blue, white, yellow, green, grey
leaf Diapering > Diapers | 650 | diapers, baby diapers, pants diapers, adult diapers | overnight, ultra thin, breathable, leak guard, tape type, pull up, 40 pcs, 64 pcs, jumbo pack
leaf Feeding > Baby Bottles | 380 | baby bottle, feeding bottle, sippy cup, bottle nipples | anti colic, wide neck, 240ml, 120ml, glass, bpa free, silicone, with handle
leaf Feeding > Breast Pumps | 1500 | breast pump, electric breast pump, manual breast pump, milk storage bags | hands free, wearable, double, rechargeable, quiet, massage mode
leaf Baby Gear > Strollers | 4500 | stroller, baby stroller, car seat, baby carrier | lightweight, foldable, reclining, travel system, one hand fold, hipseat, ergonomic
leaf Nursery > Cribs | 3800 | baby crib, playpen, bassinet, baby cot | foldable, with mosquito net, wooden, rocking, portable, with wheels
leaf Baby Clothing > Baby Clothes | 250 | baby onesie, romper, baby clothes set, bodysuit | cotton, newborn, 3 pieces, long sleeve, short sleeve, cute print, unisex
leaf Baby Care > Baby Care | 250 | baby wipes, baby lotion, baby bath, baby oil | fragrance free, hypoallergenic, gentle, 80 sheets, tear free, moisturizing

top Toys & Games | 5 | 45
attr recommended_age: 3 years and above, 6 years and above, 8 years and above, 12 years and above, 14 years and above
attr material: plastic, wood, plush, abs, metal, foam
attr battery_required: yes, no, batteries included
sku color_family: red, blue, pink, yellow, green, multicolor
leaf Building Toys > Building Blocks | 600 | building blocks, brick set, magnetic tiles, construction toy | 500 pcs, compatible, city, technic, creative, educational, mini, cartoon, 3d model
leaf Dolls & Plush > Plush Toys | 350 | plush toy, stuffed toy, doll, pillow plush | soft, cute, giant, 30cm, 60cm, cartoon, kawaii, hugging, gift
leaf Remote Control > RC Cars | 900 | rc car, remote control car, rc truck, rc stunt car | 4wd, off road, high speed, rechargeable, 2.4ghz, climbing, waterproof, 1:16
leaf Educational Toys > Educational Toys | 400 | educational toy, puzzle, flash cards, learning tablet | montessori, wooden, alphabet, math, stem, talking, bilingual, shape sorter
leaf Outdoor Play > Outdoor Toys | 700 | bubble machine, water gun, kids bike, scooter | automatic, electric, 3 wheels, foldable, led wheels, large capacity
leaf Games & Puzzles > Board Games | 500 | board game, card game, jigsaw puzzle, chess set | family, party, 1000 pieces, strategy, magnetic, wooden, classic
leaf Collectibles > Action Figures | 800 | action figure, model kit, figurine, blind box | anime, 1:144, articulated, limited edition, pvc, collectible, gundam style

top Groceries | 5 | 50
attr packaging_type: bag, box, bottle, can, jar, pouch, sachet
attr pack_type: single, bundle, multi pack, family pack
attr dietary_needs: none, sugar free, gluten free, vegan, organic, halal, keto
sku flavor: original, chocolate, vanilla, strawberry, spicy, cheese, barbecue
leaf Beverages > Coffee | 350 | instant coffee, coffee beans, ground coffee, 3 in 1 coffee | arabica, barako, robusta, decaf, strong, creamy, 30 sachets, 1kg, 500g
leaf Beverages > Tea | 250 | green tea, milk tea powder, herbal tea, tea bags | matcha, jasmine, oolong, 100 bags, organic, detox, ceylon
leaf Beverages > Juices & Drinks | 180 | juice, energy drink, sports drink, powdered drink | mango, calamansi, orange, zero sugar, 1l, 24 cans, electrolytes
leaf Snacks > Chips & Crisps | 120 | potato chips, corn chips, crackers, nuts | cheese, sour cream, spicy, salted, family size, 150g, roasted, garlic
leaf Snacks > Chocolates & Candies | 200 | chocolate, candy, gummies, cookies | dark chocolate, milk chocolate, 70 percent cocoa, sugar free, assorted, imported
leaf Pantry > Cooking Essentials | 160 | cooking oil, soy sauce, vinegar, seasoning, chili powder | 1l, 1kg, bottle, pure, premium, all purpose, spicy, organic
leaf Pantry > Noodles & Pasta | 110 | instant noodles, pasta, ramen, pancit canton | spicy, cheese, chicken, korean, 5 packs, 1kg, whole wheat
leaf Pantry > Rice & Grains | 650 | rice, brown rice, oats, quinoa | 5kg, 10kg, jasmine, dinorado, rolled, steel cut, premium
leaf Canned Goods > Canned Goods | 90 | canned tuna, corned beef, sardines, luncheon meat | in oil, spicy, 155g, 380g, pack of 6, premium, lite

top Pet Supplies | 3 | 35
attr pet_type: dog, cat, bird, fish, small animal
attr pet_life_stage: puppy, kitten, adult, senior, all life stages
sku size: xs, s, m, l, xl
sku flavor: chicken, beef, salmon, tuna, lamb
leaf Pet Food > Dog Food | 750 | dog food, puppy food, dog treats, dry dog food | grain free, high protein, 1kg, 3kg, 20kg, small breed, chicken flavor, dental
leaf Pet Food > Cat Food | 550 | cat food, kitten food, cat treats, wet cat food | tuna, salmon, 1.2kg, 7kg, hairball control, indoor, creamy, pouch
leaf Pet Accessories > Collars & Leashes | 200 | dog collar, leash, harness, cat collar | adjustable, reflective, no pull, with bell, nylon, retractable, padded
leaf Pet Accessories > Pet Beds | 500 | pet bed, cat bed, dog bed, pet house | washable, calming, round, orthopedic, waterproof, foldable, plush
leaf Pet Grooming > Grooming | 300 | pet shampoo, grooming brush, nail clipper, cat litter | anti tick, deshedding, self cleaning, clumping, tofu litter, 10l, odor control
leaf Aquarium > Aquarium Supplies | 450 | aquarium, fish tank, aquarium filter, air pump | glass, led light, silent, 3 in 1, 20l, submersible, oxygen

top Women's Fashion | 9 | 60
attr clothing_material: cotton, polyester, rayon, linen, denim, spandex, chiffon, knit, satin
attr fa_pattern: plain, floral, striped, printed, checkered, polka dot, animal print
attr occasion: casual, office, party, beach, sports, formal
sku color_family: black, white, beige, pink, blue, green, brown, red, khaki, grey
sku size: xs, s, m, l, xl, xxl, free size
leaf Clothing > Dresses | 450 | dress, maxi dress, midi dress, bodycon dress, sundress | floral, korean style, sleeveless, v neck, puff sleeve, smocked, elegant, off shoulder, slit
leaf Clothing > Tops | 250 | blouse, t shirt, crop top, tank top, cardigan | oversized, ribbed, button down, korean, ruffle, long sleeve, square neck, knit
leaf Clothing > Pants & Jeans | 420 | jeans, wide leg pants, trousers, leggings, shorts | high waist, baggy fit, straight leg, stretch, cargo, plus size, denim, vintage, ripped
attr jeans_fit_type: skinny, straight, baggy fit, wide leg, mom fit, bootcut
attr waist_type: high, mid, low
sku size: eu:26, eu:28, eu:30, eu:32, eu:34
leaf Clothing > Skirts | 300 | skirt, pleated skirt, mini skirt, maxi skirt | a line, tennis, high waist, satin, denim, korean, tiered
leaf Lingerie & Sleepwear > Sleepwear | 320 | pajama set, nightdress, sleepwear, robe | silk, cotton, 2 piece, cute, short sleeve, satin, terno
leaf Lingerie & Sleepwear > Bras | 280 | bra, sports bra, bralette, seamless bra | wireless, push up, padded, front closure, plus size, breathable, lace
leaf Muslim Wear > Hijabs | 250 | hijab, abaya, scarf, prayer dress | chiffon, jersey, instant, pleated, modest, elegant
leaf Outerwear > Jackets | 650 | jacket, blazer, hoodie, windbreaker | cropped, oversized, zip up, waterproof, fleece, denim, varsity, corduroy

top Men's Fashion | 7 | 55
attr clothing_material: cotton, polyester, linen, denim, nylon, fleece, spandex
attr fa_pattern: plain, striped, printed, checkered, camouflage, graphic
attr occasion: casual, office, sports, formal, outdoor
sku color_family: black, white, navy, grey, khaki, olive, brown, blue, maroon
sku size: s, m, l, xl, xxl, 3xl
leaf Clothing > T-Shirts | 250 | t shirt, polo shirt, graphic tee, sando | oversized, cotton, dri fit, round neck, plain, vintage wash, slim fit, heavyweight
leaf Clothing > Shirts | 380 | polo, long sleeve shirt, button down shirt, barong | linen, formal, slim fit, short sleeve, korean, cuban collar, oxford
leaf Clothing > Pants | 450 | cargo pants, chino pants, jogger pants, jeans, shorts | slim fit, stretch, straight cut, drawstring, multi pocket, tapered, tactical
sku size: 28, 30, 32, 34, 36, 38
leaf Activewear > Jerseys | 380 | basketball jersey, jersey, sports shorts, compression shirt | quick drying, breathable, loose, college, sublimation, sleeveless, team
attr activity_type: basketball, college basketball, football, running, gym, cycling
leaf Outerwear > Hoodies & Jackets | 650 | hoodie, jacket, bomber jacket, windbreaker | zip up, fleece lined, waterproof, hooded, oversized, varsity, lightweight
leaf Underwear > Underwear | 280 | boxer briefs, briefs, undershirt, socks | cotton, breathable, 3 pack, 6 pack, seamless, ankle, no show
leaf Accessories > Belts | 260 | belt, leather belt, tactical belt, canvas belt | automatic buckle, genuine leather, casual, business, adjustable, reversible
attr belt_material: leather, canvas, nylon, pu leather
sku size: waist:30, waist:32, waist:34, waist:36, waist:38, waist:40, waist:44
leaf Accessories > Caps & Hats | 220 | cap, baseball cap, bucket hat, beanie | embroidered, adjustable, trucker, snapback, cotton, unisex, sun protection

top Footwear | 6 | 45
attr shoe_material: mesh, leather, synthetic, canvas, rubber, suede, eva, knit
attr closure_type: lace up, slip on, velcro, buckle, zipper
attr occasion: casual, sports, running, formal, outdoor, indoor
sku color_family: black, white, grey, navy, pink, beige, brown, red, blue
sku size: eu:36, eu:37, eu:38, eu:39, eu:40, eu:41, eu:42, eu:43, eu:44
leaf Men's Shoes > Sneakers | 1200 | sneakers, running shoes, basketball shoes, rubber shoes | breathable, lightweight, cushioned, anti slip, chunky, high cut, low cut, white, platform
leaf Men's Shoes > Formal Shoes | 1300 | leather shoes, loafers, oxford shoes, derby shoes | genuine leather, pointed toe, black shoes, business, comfortable, slip on
leaf Women's Shoes > Heels | 650 | heels, block heels, stiletto, wedge sandals | pointed toe, ankle strap, 3 inch, transparent, comfortable, party
leaf Women's Shoes > Flats & Sandals | 380 | sandals, flat shoes, slides, doll shoes | soft sole, korean, strappy, platform, beach, comfortable, cute, bow
leaf Slippers > Slippers | 150 | slippers, flip flops, house slippers, slides | anti slip, eva, soft, bathroom, thick sole, cloud, indoor, unisex
leaf Kids' Shoes > Kids' Shoes | 450 | kids shoes, school shoes, light up shoes, toddler shoes | led, velcro, breathable, black school shoes, non slip, cartoon

top Bags & Travel | 5 | 45
attr bag_material: pu leather, genuine leather, nylon, canvas, polyester, oxford cloth
attr closure_type: zipper, magnetic, buckle, drawstring, flap
sku color_family: black, brown, beige, grey, navy, pink, green, white, khaki
leaf Women's Bags > Shoulder Bags | 550 | shoulder bag, sling bag, tote bag, crossbody bag | korean style, large capacity, chain strap, mini, quilted, canvas, pu leather, vintage
leaf Women's Bags > Wallets | 300 | wallet, long wallet, card holder, coin purse | zipper, rfid blocking, leather, minimalist, trifold, cute
leaf Men's Bags > Backpacks | 800 | backpack, laptop backpack, school bag, travel backpack | waterproof, usb charging port, anti theft, 15.6 inch, large capacity, expandable, lightweight
attr capacity: 15l, 20l, 25l, 30l, 40l
leaf Men's Bags > Messenger Bags | 500 | messenger bag, chest bag, belt bag, waist bag | sling, crossbody, water resistant, tactical, nylon, multi pocket
leaf Travel > Luggage | 2500 | luggage, suitcase, trolley bag, carry on | 20 inch, 24 inch, 28 inch, spinner wheels, tsa lock, hard case, expandable, lightweight
sku size: 20 inch, 24 inch, 28 inch
leaf Travel > Travel Accessories | 250 | packing cubes, travel pouch, luggage tag, passport holder | 6 pcs, waterproof, toiletry, organizer, compression, rfid

top Watches & Jewelry | 4 | 45
attr jewelry_material: stainless steel, sterling silver, 18k gold plated, titanium, alloy, pearl
attr watch_movement: quartz, automatic, digital, smart
sku color_family: gold, silver, rose gold, black, blue, white
leaf Watches > Men's Watches | 1500 | watch, analog watch, chronograph watch, digital watch | waterproof, stainless steel, leather strap, luminous, date display, sports, minimalist
leaf Watches > Women's Watches | 1200 | women's watch, bracelet watch, quartz watch | rose gold, mesh strap, elegant, small dial, diamond, waterproof
leaf Smart Wearables > Smartwatches | 1800 | smartwatch, fitness tracker, smart band | heart rate, blood oxygen, amoled, bluetooth call, ip68, sleep tracking, sports modes
leaf Smart Wearables > Watch Straps | 180 | watch strap, watch band, strap, bumper case | silicone, milanese loop, magnetic, stainless, leather, nylon sport, for apple watch, for xiaomi band
sku size: 38mm, 40mm, 41mm, 42mm, 44mm, 45mm
leaf Jewelry > Necklaces | 380 | necklace, pendant, chain necklace, choker | 18k gold, stainless steel, non tarnish, minimalist, heart, initial, layered
leaf Jewelry > Earrings | 250 | earrings, stud earrings, hoop earrings, ear cuff | hypoallergenic, sterling silver, pearl, korean, dangling, non tarnish
leaf Jewelry > Rings & Bracelets | 300 | ring, bracelet, bangle, anklet | adjustable, couple, stainless, titanium, charm, beaded, non fading
leaf Eyewear > Sunglasses | 350 | sunglasses, eyeglasses, anti radiation glasses, reading glasses | polarized, uv400, retro, cat eye, photochromic, blue light blocking, oversized

top Sports & Outdoors | 6 | 50
attr sports_type: running, gym, yoga, camping, hiking, swimming, cycling, basketball, badminton
attr material: nylon, polyester, steel, aluminum, rubber, tpe, eva foam
sku color_family: black, blue, red, green, pink, purple, grey, orange
leaf Exercise & Fitness > Dumbbells | 900 | dumbbell, adjustable dumbbell, kettlebell, barbell set | 10kg, 20kg, 40kg, cast iron, neoprene, hex, with connector
attr weight: 2kg, 5kg, 10kg, 20kg, 40kg
leaf Exercise & Fitness > Yoga Mats | 380 | yoga mat, exercise mat, resistance bands, foam roller | non slip, 6mm, 10mm, tpe, with strap, eco friendly, extra thick
leaf Exercise & Fitness > Gym Equipment | 2500 | treadmill, exercise bike, pull up bar, ab roller | foldable, home use, magnetic, doorway, adjustable, silent
leaf Camping & Hiking > Tents | 1600 | tent, camping tent, hammock, sleeping bag | 4 person, waterproof, automatic, instant, double layer, ultralight, with mosquito net
leaf Camping & Hiking > Camping Gear | 450 | camping lantern, camping chair, headlamp, cooler box | rechargeable, foldable, portable, led, waterproof, lightweight
leaf Cycling > Bicycle Accessories | 350 | bike light, bike lock, bicycle helmet, bike pump | usb rechargeable, waterproof, anti theft, adjustable, mini, tail light
leaf Racket Sports > Badminton | 650 | badminton racket, shuttlecock, tennis racket, pickleball paddle | carbon fiber, lightweight, with bag, professional, 4u, feather
leaf Water Sports > Swimming | 320 | swimming goggles, swim cap, swimsuit, rash guard | anti fog, uv protection, adjustable, quick dry, one piece, kids
leaf Team Sports > Balls | 600 | basketball, football, volleyball, soccer ball | size 7, size 5, indoor, outdoor, pu leather, rubber, official

top Automotive & Motorcycles | 4 | 40
attr vehicle_type: car, motorcycle, scooter, truck, suv, universal
attr material: abs, rubber, leather, stainless steel, aluminum, carbon fiber
sku color_family: black, red, blue, silver, white, carbon
leaf Car Accessories > Car Interior | 350 | car seat cover, steering wheel cover, car organizer, car mat | universal, leather, breathable, anti slip, 5 seater, waterproof, custom fit
leaf Car Electronics > Dash Cams | 1600 | dash cam, car camera, reverse camera, car stereo | 1080p, dual lens, night vision, wifi, loop recording, gps, android, carplay
leaf Car Care > Car Care | 300 | car wax, car shampoo, microfiber towel, tire shine | ceramic coating, hydrophobic, foam, scratch remover, 500ml, detailing
leaf Motorcycle Parts > Motorcycle Accessories | 450 | motorcycle helmet, motor cover, handle grip, side mirror | full face, half face, waterproof, universal, icc certified, anti theft
leaf Motorcycle Parts > Motorcycle Parts | 650 | motorcycle battery, brake pads, spark plug, chain and sprocket | heavy duty, for mio, for nmax, for click, oem, racing, maintenance free
leaf Car Parts > Car Parts | 900 | car battery, wiper blades, air filter, headlight bulb | led, h4, h7, super bright, oem, 12v, frameless, universal fit
leaf Tools & Equipment > Auto Tools | 900 | tire inflator, jump starter, jack, obd2 scanner | portable, digital, 150psi, 12v, cordless, hydraulic, 2 ton

top Media, Music & Books | 3 | 30
attr language: english, filipino, tagalog, japanese, korean, chinese
attr condition: new, sealed, pre owned
sku color_family: black, natural, brown, sunburst, white
leaf Books > Fiction | 450 | novel, paperback, book, manga, light novel | bestseller, romance, fantasy, thriller, box set, hardcover, english edition
leaf Books > Learning & Education | 350 | workbook, textbook, reviewer, activity book | grade 1, grade 12, general physics, math, english, board exam, coloring
attr isbn_issn: 0000, isbn available
leaf Musical Instruments > Guitars | 2800 | acoustic guitar, electric guitar, ukulele, bass guitar | 41 inch, 38 inch, beginner, with bag, cutaway, solid top, starter kit
leaf Musical Instruments > Keyboards & Pianos | 4500 | digital piano, keyboard piano, midi controller, melodica | 61 keys, 88 keys, weighted, portable, with stand, usb, sustain pedal
leaf Musical Instruments > Drums & Percussion | 2200 | cymbals, drum sticks, cajon, practice pad, drum set | b20 cast bronze, hybrid, crash, ride, hi hat, maple, 5a
leaf Musical Instruments > Musical Accessories | 250 | guitar strings, violin bow, capo, tuner, guitar picks | horsetail hair, full size, nickel, phosphor bronze, clip on, handmade, 4/4
attr music_accessories_function: tuning, playing, maintenance, protection
leaf Music > CDs & Vinyl | 900 | vinyl record, cd album, cassette tape, box set | original, sealed, brand new, limited edition, opm, kpop, signed
leaf Movies & Media > Movies & Media | 350 | dvd, blu ray, poster, photocard | original, region free, collector, box set, limited

top Stationery & Office | 4 | 40
attr material: paper, plastic, metal, wood, leather, canvas
attr paper_size: a4, a5, a6, b5, letter, legal
sku color_family: black, blue, red, pink, white, multicolor, pastel
leaf Writing Instruments > Pens | 120 | gel pen, ballpen, fountain pen, highlighter, marker | 0.5mm, quick dry, pastel, 12 colors, refillable, smooth writing, erasable
leaf Paper Products > Notebooks | 150 | notebook, planner, journal, sketchbook | spiral, dotted, ruled, a5, hardcover, aesthetic, 100 sheets, undated
leaf Art Supplies > Art Supplies | 300 | crayons, colored pencils, watercolor set, acrylic paint, paint brushes | 24 colors, 50 colors, oil based, artist grade, non toxic, junior artist, professional
attr type_of_inks: oil based, water based, gel, pigment
leaf Office Supplies > Office Supplies | 250 | stapler, calculator, paper shredder, label maker | heavy duty, scientific, solar, 12 digit, bluetooth, portable
attr power_source: battery, solar, usb, manual
leaf Office Supplies > Printers & Ink | 3500 | printer, ink tank printer, ink bottle, thermal printer | wifi, all in one, portable, refill, compatible, borderless, mini
leaf School Supplies > School Supplies | 180 | pencil case, school supplies set, ruler set, scientific calculator | large capacity, cute, kawaii, transparent, 3 layers, metal
leaf Craft & Sewing > Crafts | 220 | sewing kit, glue gun, scrapbook kit, yarn | hot melt, crochet, beginner, diy, 20w, milk cotton

top Gaming | 3 | 30
attr compatible_platform: ps5, ps4, nintendo switch, xbox, pc, mobile
attr connectivity: wired, wireless, bluetooth, 2.4g
sku color_family: black, white, red, blue, purple
leaf Consoles > Consoles | 18000 | game console, handheld console, retro console | ps5, switch oled, portable, 4k, 10000 games, hdmi out, dual player
leaf Controllers > Controllers | 1500 | game controller, gamepad, joystick, phone trigger | wireless, bluetooth, vibration, hall effect, rgb, for pc, for switch
leaf Gaming Accessories > Gaming Accessories | 650 | gaming chair, gaming desk, mouse pad, headset stand | rgb, xl, extended, carbon fiber, ergonomic, cable management
leaf Games > Video Games | 2200 | video game, game card, digital code | sealed, english version, asia, physical copy, collector edition

top Garden & Outdoor | 2 | 25
attr material: plastic, ceramic, terracotta, metal, wood, resin
attr plant_type: indoor, outdoor, succulent, vegetable, flowering, herb
sku color_family: green, white, black, brown, terracotta, grey
leaf Gardening > Plant Pots | 200 | plant pot, planter, hanging planter, seedling tray | self watering, with drainage, nordic, ceramic, set of 3, plastic
leaf Gardening > Seeds & Plants | 120 | seeds, vegetable seeds, fertilizer, potting soil | organic, heirloom, high germination, 100 seeds, slow release, vermicast
leaf Gardening > Garden Tools | 350 | garden hose, pruning shears, sprinkler, garden tool set | expandable, heavy duty, 30m, 3 piece, ergonomic, rust proof
leaf Outdoor Living > Outdoor Decor | 600 | solar lights, garden lights, outdoor furniture, parasol | waterproof, auto on off, warm white, rattan, foldable, led
leaf Pest Control > Pest Control | 250 | mosquito killer, insect repellent, rat trap, electric swatter | uv light, usb, rechargeable, ultrasonic, non toxic, child safe
`
